"""`spark edit --deep`: the same one-shot flow with the deep track's settings ([deep])."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trusting import write_project
from typer.testing import CliRunner

from spark_cli.cli.main import app

PY = "def total_price(items):\n    return sum(items)\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text(PY)
    (tmp_path / ".spark").mkdir()
    write_project(tmp_path, '[deep]\nmodel = "spark-lorem"\n')
    config = tmp_path.parent / f"{tmp_path.name}-config"
    config.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(config))
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _summary(args: list[str]) -> dict[str, object]:
    result = CliRunner().invoke(app, ["edit", "app.py", "--json", "--max-output-tokens", "60",
                                      "-m", "rename total_price to grand_total", *args])
    summary = json.loads(result.stdout.splitlines()[-1])
    assert result.exit_code == (0 if summary["applied"] else 5), result.output  # 5: no edit
    return summary  # type: ignore[no-any-return]


def test_deep_swaps_in_the_deep_model_and_nothing_else(repo: Path) -> None:
    assert _summary(["--deep"])["applied"] == 0  # [deep] model spark-lorem: prose, no edit
    assert (repo / "app.py").read_text() == PY
    assert _summary([])["applied"] == 1  # the fast model (the rules brain) renames
    assert "grand_total" in (repo / "app.py").read_text()


def test_deep_flags_pick_the_deep_provider(repo: Path) -> None:
    assert _summary(["--deep", "--model", "spark-rules"])["applied"] == 1


def test_deep_provider_without_its_key_is_one_usage_line(repo: Path) -> None:
    result = CliRunner().invoke(app, ["edit", "app.py", "--deep", "--provider", "openai",
                                      "-m", "x"])
    assert result.exit_code == 2
    assert result.stderr.strip() == ("spark edit: deep provider 'openai' needs an API key: set "
                                     "OPENAI_API_KEY (or SPARK_API_KEY)")
    assert (repo / "app.py").read_text() == PY

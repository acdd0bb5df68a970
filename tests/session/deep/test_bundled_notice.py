"""The deep track says once when it falls back on the bundled engine while the fast track
talks to a real server (issue 20 item 8)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trusting import state_env, trust
from typer.testing import CliRunner

from spark_cli.cli.main import app
from spark_cli.session.config.settings import load_settings
from spark_cli.session.deep.deep_settings import bundled_notice, load_deep_settings
from spark_cli.session.deep.track import DeepTrack

FAST = {"provider": "openai-compatible", "base_url": "http://127.0.0.1:9/v1", "model": "m"}


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "no-user-config"))
    for key in ("SPARK_PROVIDER", "SPARK_BASE_URL", "SPARK_MODEL", "SPARK_DEEP_PROVIDER",
                "SPARK_API_KEY", "OPENAI_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    return tmp_path


def test_no_deep_provider_and_a_real_fast_one_is_said(root: Path):
    deep = load_deep_settings(root, {}, {})
    notice = bundled_notice(deep, load_settings(root, FAST, {}))
    assert notice is not None
    assert "no [deep] provider is configured" in notice and "bundled engine" in notice
    assert "spark-deep" in notice and "openai-compatible" in notice


def test_nothing_to_say_on_the_bundled_fast_track_or_with_a_deep_provider(root: Path):
    assert bundled_notice(load_deep_settings(root, {}, {}), load_settings(root, {}, {})) is None
    (root / ".spark").mkdir()
    (root / ".spark" / "config.toml").write_text('[deep]\nprovider = "mock"\n')
    trust(root)
    chosen = load_deep_settings(root, {}, state_env())
    assert bundled_notice(chosen, load_settings(root, FAST, {})) is None  # asked for: no news


async def test_the_track_gives_the_notice_to_its_first_task_only(root: Path):
    deep = load_deep_settings(root, {}, {})
    track = DeepTrack(root, deep, connect=None, on_change=lambda task: None,  # type: ignore[arg-type]
                      state_dir=root / "state", fast=load_settings(root, FAST, {}))
    first, second = track.start(""), track.start("")  # empty tasks fail at once
    assert first.note is not None and "bundled engine" in first.note
    assert second.note is None


def test_spark_edit_deep_says_it(root: Path, monkeypatch: pytest.MonkeyPatch):
    (root / "app.py").write_text("def f():\n    return 1\n")
    monkeypatch.chdir(root)
    monkeypatch.setenv("SPARK_PROVIDER", "cerebras")  # the fast track: a real provider
    result = CliRunner().invoke(app, ["edit", "app.py", "--deep", "--max-output-tokens", "40",
                                      "-m", "explain f"])
    assert "spark edit: deep track: no [deep] provider is configured" in result.stderr
    assert "not on cerebras" in result.stderr

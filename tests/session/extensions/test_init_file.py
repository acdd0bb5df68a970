"""``/init``'s ask (the repo's layout and test command) and the bundled rules brain's AGENTS.md
for it, applied by spark's own edit engine in both formats; nothing asked over an existing one."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spark_cli.engine.brains.base import EditFormat
from spark_cli.protocol.agents_file import is_init
from spark_cli.session.extensions.prompt_files import init_ask
from tests.engine.brains.brain_harness import FORMATS, apply_answer, ask

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "repo"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".spark"))
    return copy


def test_the_ask_names_the_layout_and_the_test_command(repo: Path) -> None:
    text = init_ask(repo, None)
    assert text is not None and is_init(text)
    assert "Layout: src/, tests/, web/, README.md, pyproject.toml" in text
    tests = text.split("Test command: ")[1].split("\n")[0]
    assert "pytest" in tests and "/" not in tests  # no interpreter path of this machine
    assert "Test command: make lint" in (init_ask(repo, "make lint") or "")


def test_nothing_is_asked_over_an_existing_agents_file(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("mine\n")
    assert init_ask(repo, None) is None
    assert (repo / "AGENTS.md").read_text() == "mine\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_the_bundled_engine_writes_one_as_an_edit(repo: Path, tmp_path: Path,
                                                  fmt: EditFormat) -> None:
    text = init_ask(repo, None)
    assert text is not None
    answer = ask(text, {}, fmt)
    written = apply_answer(answer, {}, tmp_path / "out")
    assert written == {}  # no files were given: the edit creates AGENTS.md
    agents = (tmp_path / "out" / "AGENTS.md").read_text()
    assert agents.startswith("# AGENTS.md") and "- `src/`" in agents and "pytest" in agents

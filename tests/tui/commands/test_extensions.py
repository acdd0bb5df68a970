"""Prompt files and hooks in the TUI, against a scripted OpenAI-shaped model on loopback."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.workspace.store import SessionStore
from spark_cli.tui.app import SparkApp
from spark_cli.tui.setup import TuiSetup
from spark_cli.tui.transcript.transcript import Transcript
from tests.cli.edit.openai_script import Model, chat_model
from tests.tui.conftest import real_connect, send_turn


def _app(repo: Path, tmp_path: Path, url: str) -> SparkApp:
    env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), "SPARK_API_KEY": "sk-test-0123456789"}
    settings = load_settings(repo, {"provider": "openai-compatible", "base_url": url,
                                    "model": "m"}, env)
    return SparkApp(TuiSetup(session=Session(None, repo, settings), connect=real_connect,
                             store=SessionStore(repo)))


@pytest.fixture
def cfg(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "cfg"))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "cfg" / "commands").mkdir(parents=True)
    return tmp_path / "cfg"


async def test_a_prompt_files_model_is_its_turns_and_the_next_turn_goes_back(
        repo: Path, tmp_path: Path, cfg: Path) -> None:
    (cfg / "commands" / "think.md").write_text("---\nmodel: big-model\n---\nThink about $1.\n")
    model = Model(("read_file", {"path": "app.py"}))
    with chat_model(model) as url:
        app = _app(repo, tmp_path, url)
        async with app.run_test(size=(100, 30)) as pilot:
            await send_turn(app, pilot, "/think app.py")
            await send_turn(app, pilot, "Think about app.py.")  # typed: the default model
    assert [r["model"] for r in model.requests] == ["big-model", "big-model", "m"]
    assert model.requests[0]["messages"][-1]["content"].endswith("Think about app.py.\n")


async def test_a_hook_warning_shows_in_the_transcript(repo: Path, tmp_path: Path,
                                                      cfg: Path) -> None:
    (cfg / "config.toml").write_text('[[hooks.PostToolUse]]\ncommand = "sleep 5"\n'
                                     'timeout_s = 0.2\n')
    model = Model(("read_file", {"path": "app.py"}))
    with chat_model(model) as url:
        app = _app(repo, tmp_path, url)
        async with app.run_test(size=(120, 30)) as pilot:
            await send_turn(app, pilot, "read it")
            shown = app.query_one(Transcript).plain_text()
    assert "⚠ hook PostToolUse 'sleep 5': timed out after 0.2 s and was killed" in shown
    assert "sleep 5" not in model.outputs[0]

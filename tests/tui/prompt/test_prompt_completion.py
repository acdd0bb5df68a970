"""The prompt a user expects: / commands with completion, @ files, history, Ctrl+R, ? help,
a resumed session shown whole. The channel does no I/O (nothing here streams)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.protocol.channel import Message
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.workspace.store import SessionStore, ShownItem
from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.popup import Popup
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.setup import TuiSetup
from spark_cli.tui.transcript.transcript import Transcript

DIFF = "--- a/src/shop/cart.py\n+++ b/src/shop/cart.py\n@@ -1 +1 @@\n-a\n+b\n"


@contextlib.asynccontextmanager
async def offline(settings: Any) -> AsyncIterator[Any]:
    raise OSError("offline")
    yield  # pragma: no cover


@pytest.fixture
def shop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "shop"
    for rel in ("src/shop/cart.py", "src/shop/pricing.py", "tests/test_cart.py", "README.md",
                "build/junk.py"):
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text("x = 1\n")
    (root / ".gitignore").write_text("build/\n")
    return root


def _app(root: Path, tmp_path: Path, **setup: Any) -> SparkApp:
    settings = load_settings(root, {"provider": "mock", "model": "spark-rules"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    return SparkApp(TuiSetup(session=Session(None, root, settings), connect=offline,
                             store=SessionStore(root), **setup))


def _popup(app: SparkApp) -> str:
    popup = app.query_one(Popup)
    return str(popup.render()) if popup.display else ""


async def test_slash_lists_commands_and_tab_completes_one(shop: Path, tmp_path: Path) -> None:
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        shown = _popup(app)
        assert "/add PATH…" in shown and "add files every turn sends in full" in shown
        await pilot.press("m", "o")
        await pilot.pause()
        assert "/model NAME" in _popup(app) and "/add" not in _popup(app)
        await pilot.press("tab")
        await pilot.pause()
        assert app.query_one(Prompt).text == "/model "
        assert "spark-rules" in _popup(app)  # its argument: the configured models
        await pilot.press("down", "tab")
        await pilot.pause()
        assert app.query_one(Prompt).text.startswith("/model spark-")


async def test_enter_on_a_command_without_arguments_runs_it(shop: Path,
                                                            tmp_path: Path) -> None:
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash", "f", "i", "l")
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        assert "files every turn sends: none" in app.query_one(Transcript).plain_text()
        assert app.query_one(Prompt).text == ""


async def test_at_offers_repo_files_and_attaches_the_chosen_one(shop: Path,
                                                                tmp_path: Path) -> None:
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"explain @src/sh")
        await wait_until(lambda: "src/shop/cart.py" in _popup(app))
        await pilot.press(*"build")
        await pilot.pause()
        assert "build/junk.py" not in _popup(app)  # .gitignore is honoured
        for _ in "build":
            await pilot.press("backspace")
        await wait_until(lambda: "src/shop/cart.py" in _popup(app))
        await pilot.press("tab")
        await pilot.pause()
        assert app.query_one(Prompt).text == "explain @src/shop/cart.py "
        assert not app.query_one(Popup).display
        await pilot.press("enter")
        await wait_until(lambda: "src/shop/cart.py" in app.context_files.files())
        assert "attached src/shop/cart.py" in app.query_one(Transcript).plain_text()


async def test_add_completes_paths(shop: Path, tmp_path: Path) -> None:
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/add pric")
        await wait_until(lambda: "src/shop/pricing.py" in _popup(app))
        await pilot.press("tab")
        await pilot.pause()
        assert app.query_one(Prompt).text == "/add src/shop/pricing.py"


async def test_up_recalls_and_ctrl_r_searches_earlier_sessions(shop: Path,
                                                               tmp_path: Path) -> None:
    store = SessionStore(shop)
    for text in ("rename total_price", "add a docstring", "fix the tests"):
        store.add_prompt(text)
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("up")
        assert app.query_one(Prompt).text == "fix the tests"
        await pilot.press("ctrl+c")  # clears the prompt
        await pilot.press(*"doc", "ctrl+r")
        await pilot.pause()
        assert "add a docstring" in _popup(app) and "rename" not in _popup(app)
        await pilot.press("enter")
        assert app.query_one(Prompt).text == "add a docstring"


async def test_question_mark_on_an_empty_prompt_shows_help(shop: Path, tmp_path: Path) -> None:
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        text = app.query_one(Transcript).plain_text()
        assert "Ctrl+R search it" in text and "/deep" in text
        await pilot.press("a", "question_mark")
        assert app.query_one(Prompt).text == "a?"


def _saved(root: Path, turns: int) -> None:
    shown: list[ShownItem] = []
    history: list[Message] = []
    for n in range(1, turns + 1):
        shown += [ShownItem("prompt", f"question {n}", "sent"),
                  ShownItem("answer", f"Answer {n}:\nfirst line\nsecond line"),
                  ShownItem("edit", "src/shop/cart.py: applied 1 hunk(s)", DIFF),
                  ShownItem("summary", f"TTFT 20 ms · turn {n}")]
        history += [Message("user", f"question {n}"), Message("assistant", f"Answer {n}")]
    SessionStore(root).save_conversation(history, provider="mock", model="spark-rules",
                                         shown=shown)


async def test_a_resumed_session_is_shown_whole_and_scrolled_to_the_end(
        shop: Path, tmp_path: Path) -> None:
    _saved(shop, 3)
    app = _app(shop, tmp_path, resume=True)
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        await wait_until(lambda: "resumed the conversation" in transcript.plain_text())
        text = transcript.plain_text()
        for n in (1, 2, 3):
            assert f"› question {n}" in text and f"TTFT 20 ms · turn {n}" in text
        assert "first line\nsecond line" in text  # the model's line breaks stay
        assert text.count("✓ src/shop/cart.py: applied 1 hunk(s)") == 3
        assert len(app.session.history) == 6
        await pilot.pause()
        assert transcript.scroll_offset.y == transcript.max_scroll_y


async def test_a_long_history_shows_its_end_first_and_the_rest_on_scrolling_up(
        shop: Path, tmp_path: Path) -> None:
    _saved(shop, 500)
    app = _app(shop, tmp_path, resume=True)
    async with app.run_test(size=(100, 40)) as pilot:
        transcript = app.query_one(Transcript)
        await wait_until(lambda: "resumed the conversation" in transcript.plain_text())
        assert "› question 500" in transcript.plain_text()
        assert "› question 470\n" not in transcript.plain_text()
        transcript.scroll_to(y=0, animate=False)
        await wait_until(lambda: "› question 470" in transcript.plain_text())
        await pilot.pause()
        assert transcript.scroll_offset.y > 0  # the view stayed on what it showed


async def test_a_prompt_file_shows_with_its_description_and_sends_its_text(
        shop: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    commands = tmp_path / "cfg" / "commands"
    commands.mkdir(parents=True)
    (commands / "review.md").write_text("---\ndescription: Review a file for bugs\n"
                                        "argument-hint: FILE\n---\nReview @$1 for bugs.\n")
    (commands / "help.md").write_text("---\ndescription: [broken\n---\n")
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "cfg"))
    app = _app(shop, tmp_path)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("slash")
        await pilot.pause()
        await pilot.press("r", "e", "v")
        await pilot.pause()
        assert "/review FILE" in _popup(app) and "Review a file for bugs" in _popup(app)
        await pilot.press("tab")
        await pilot.pause()
        assert app.query_one(Prompt).text == "/review "
        await pilot.press("ctrl+u", *"/user:h")
        await pilot.pause()
        assert "broken: front matter" in _popup(app)
        await pilot.press("ctrl+u", *"/review src/shop/cart.py", "enter")
        await wait_until(lambda: app.sent_text == "Review @src/shop/cart.py for bugs.")

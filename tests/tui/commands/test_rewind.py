"""``/rewind`` and ``/fork`` in the TUI: the controller on its own (list, preview, refusals),
then the app over the bundled engine: two edit turns, Esc Esc, code back to the original
bytes, the conversation back with the message in the prompt; fork, then resume by id."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events as tx
from waiting import wait_until

from spark_cli.edits.disk.journal import Journal
from spark_cli.protocol.channel import Message
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.conversation import Session
from spark_cli.session.workspace.turns import TurnRecord
from spark_cli.tui.app import SparkApp
from spark_cli.tui.commands.rewind import Rewinder
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

PY = "def total_price(items):\n    return sum(items)\n"
MakeApp = Callable[..., Awaitable[SparkApp]]


def _rewinder(tmp_path: Path, lines: Any, busy: bool = False) -> tuple[Rewinder, list[Any]]:
    root = tmp_path / "repo"
    root.mkdir(parents=True, exist_ok=True)
    settings = load_settings(root, {"provider": "mock"}, {"SPARK_CONFIG_DIR": str(tmp_path)})
    session = Session(None, root, settings)
    turns = [TurnRecord(text, 1.7e9 + n, (Message("user", text), Message("assistant", "ok")),
                        edited=edited, commands=made)
             for n, (text, edited, made) in enumerate([
                 ("rename a to b", ("a.py",), ()), ("build", (), ("dist/x.whl",))])]
    session.restore([item for t in turns for item in t.items], turns)
    did: list[Any] = []
    return Rewinder(session, lines, lambda: busy, lambda i, text: did.append((i, text)),
                    lambda text: did.append(text)), did


async def test_the_list_then_a_preview_then_a_conversation_rewind(
        tmp_path: Path, lines: Any) -> None:
    rewinder, did = _rewinder(tmp_path, lines)
    await rewinder.command([])
    newest, oldest = lines.lines[1][0].split(), lines.lines[2][0].split()
    assert (newest[0], newest[2:]) == ("1", ["build"])
    assert (oldest[0], oldest[2:]) == ("2", ["rename", "a", "to", "b", "·", "edited", "a.py"])
    assert did == ["/rewind "]
    await rewinder.command(["1"])
    assert "not restorable (changed by commands): dist/x.whl" in lines.text
    assert "spark edited no file since" in lines.text and did[-1] == "/rewind 1 "
    await rewinder.command(["1", "conversation"])
    assert did[-1] == (1, "build") and len(rewinder.session.turns) == 1


async def test_bad_input_and_a_running_turn_change_nothing(tmp_path: Path, lines: Any) -> None:
    rewinder, did = _rewinder(tmp_path, lines)
    for args in (["3"], ["x"], ["1", "files"], ["1", "code", "more"]):
        await rewinder.command(args)
    assert "no message 3: this conversation has 2" in lines.text
    assert lines.text.count("usage: /rewind") == 3
    busy, _ = _rewinder(tmp_path / "b", lines, busy=True)
    await busy.command(["1", "both"])
    assert "a turn is running" in lines.lines[-1][0]
    assert did == [] and len(rewinder.session.turns) == 2 and len(busy.session.turns) == 2


async def test_both_refused_for_a_changed_file_keeps_the_conversation(
        tmp_path: Path, lines: Any) -> None:
    rewinder, did = _rewinder(tmp_path, lines)
    root = rewinder.session.root
    (root / "a.py").write_text("a = 1\n")
    journal = Journal(root, undo_dir(root))
    journal.begin("rename a to b")
    journal.record("a.py", b"a = 1\n", 0o644, b"b = 1\n", 0o644)
    (root / "a.py").write_text("b = 1\n")
    journal.end()
    (root / "a.py").write_text("b = 2  # mine\n")
    await rewinder.command(["2", "both"])
    assert "a.py: edited since spark's edit" in lines.text and "nothing written" in lines.text
    assert did == [] and len(rewinder.session.turns) == 2
    assert (root / "a.py").read_text() == "b = 2  # mine\n"
    await rewinder.command(["2", "both", "--force"])
    assert (root / "a.py").read_text() == "a = 1\n" and did == [(0, "rename a to b")]


async def _send(app: SparkApp, pilot: Any, text: str) -> None:
    ended = len(app.keeper.shown.items)
    app.query_one(Prompt).load_text(text)
    await pilot.press("enter")
    await wait_until(lambda: not app.interaction.busy and len(app.keeper.shown.items) > ended
                     and app.keeper.shown.items[-1].kind in ("summary", "failed"))


async def test_two_edit_turns_then_esc_esc_code_and_conversation(
        tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app(model="spark-rules")
    async with app.run_test(size=(110, 40)) as pilot:
        await _send(app, pilot, "rename total_price to cart_total in app.py")
        await _send(app, pilot, "rename cart_total to basket_total in app.py")
        assert "basket_total" in (repo / "app.py").read_text()
        saved = app.keeper.store.load_conversation() if app.keeper.store else None
        assert saved is not None  # each turn saved by the session, with where it was shown
        assert [saved.shown[t.shown_at].text for t in saved.turns] == [
            "rename total_price to cart_total in app.py",
            "rename cart_total to basket_total in app.py"]
        await pilot.press("escape", "escape")
        transcript = app.query_one(Transcript)
        await wait_until(lambda: "your messages, newest first" in transcript.plain_text())
        prompt = app.query_one(Prompt)
        assert prompt.text == "/rewind "
        prompt.load_text("/rewind 2 code")
        await pilot.press("enter")
        await wait_until(lambda: (repo / "app.py").read_text() == PY)
        prompt.load_text("/rewind 2 conversation")
        await pilot.press("enter")
        await wait_until(lambda: prompt.text == "rename total_price to cart_total in app.py")
        assert app.session.turns == [] and app.session.history == []
        assert "rename cart_total" not in transcript.plain_text()
        saved = app.keeper.store.load_conversation() if app.keeper.store else None
        assert saved is not None and saved.turns == () and saved.history == ()


async def test_fork_then_resume_by_id(tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app(model="spark-rules")
    async with app.run_test(size=(110, 40)) as pilot:
        await _send(app, pilot, "rename total_price to cart_total in app.py")
        store = app.keeper.store
        assert store is not None
        kept = store.session_id
        app.query_one(Prompt).load_text("/fork")
        await pilot.press("enter")
        await wait_until(lambda: store.session_id != kept)
        await _send(app, pilot, "add a docstring to cart_total in app.py")
        app.query_one(Prompt).load_text("/resume")
        await pilot.press("enter")
        transcript = app.query_one(Transcript)
        await wait_until(lambda: "2 saved conversations, newest first" in transcript.plain_text())
        listed = transcript.plain_text().split("2 saved conversations")[1]
        assert listed.index(store.session_id) < listed.index(kept)  # newest first
        app.query_one(Prompt).load_text(f"/resume {kept}")
        await pilot.press("enter")
        await wait_until(lambda: store.session_id == kept and len(app.session.turns) == 1)
        assert app.session.turns[0].text == "rename total_price to cart_total in app.py"


async def test_one_esc_on_an_empty_prompt_lists_nothing(tui_app: MakeApp) -> None:
    app = await tui_app(model="spark-rules")
    async with app.run_test(size=(110, 40)) as pilot:
        app._esc_at = -10.0
        app.post_message(tx.Key("escape", "\x1b"))
        await pilot.pause()
        assert "nothing to rewind to" not in app.query_one(Transcript).plain_text()
        await pilot.press("escape")  # the second, soon after
        await wait_until(lambda: "nothing to rewind to" in app.query_one(Transcript).plain_text())

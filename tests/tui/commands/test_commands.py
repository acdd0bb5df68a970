"""Slash commands and what survives a restart, through the real app and the bundled engine."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from trusting import write_project
from waiting import wait_until

from spark_cli.session.workspace.store import SessionStore
from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.conftest import send_turn

MakeApp = Callable[..., Awaitable[SparkApp]]


def _text(app: SparkApp) -> str:
    return app.query_one(Transcript).plain_text()


async def test_undo_restores_the_files_of_the_last_turn(tui_app: MakeApp, repo: Path) -> None:
    before = (repo / "app.py").read_text()
    app = await tui_app(model="spark-rules", tps=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        app.context_files.add("app.py")
        await send_turn(app, pilot, "rename total_price to grand_total")
        assert "grand_total" in (repo / "app.py").read_text()
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert (repo / "app.py").read_text() == before
        assert "↶" in _text(app)
        app.query_one(Prompt).load_text("/undo")
        await pilot.press("enter")
        await pilot.pause()
        assert "nothing to undo" in _text(app).lower()


async def test_diff_shows_what_the_session_changed(tui_app: MakeApp) -> None:
    app = await tui_app(model="spark-rules", tps=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Prompt).load_text("/diff")
        await pilot.press("enter")
        await pilot.pause()
        assert "changed nothing in this session" in _text(app)
        app.context_files.add("app.py")
        await send_turn(app, pilot, "rename total_price to grand_total")
        app.query_one(Prompt).load_text("/diff")
        await pilot.press("enter")
        await pilot.pause()
        assert "+def grand_total(items):" in _text(app)


async def test_test_streams_output_and_fix_sends_the_failure(tui_app: MakeApp,
                                                            repo: Path) -> None:
    script = repo / "check.py"
    script.write_text("print('collecting')\nprint('FAILED test_x - assert 1 == 2')\n"
                      "raise SystemExit(1)\n")
    write_project(repo,
        f'test_command = "{sys.executable} {script}"\n')
    app = await tui_app(tps=5000, max_output_tokens=50)
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Prompt).load_text("/test")
        await pilot.press("enter")
        await wait_until(lambda: app.tests.task is not None and app.tests.task.done())
        await pilot.pause()
        text = _text(app)
        assert "collecting" in text and "FAILED (exit 1)" in text
        assert app.tests.last_failure is not None and "assert 1 == 2" in app.tests.last_failure
        await send_turn(app, pilot, "/fix")
        assert "assert 1 == 2" in app.session.history[0].content


async def test_esc_stops_a_running_test(tui_app: MakeApp, repo: Path) -> None:
    write_project(repo,
        f'test_command = "{sys.executable} -c \'import time; print(1, flush=True); '
        f'time.sleep(60)\'"\n')
    app = await tui_app()
    async with app.run_test(size=(100, 30)) as pilot:
        app.query_one(Prompt).load_text("/test")
        await pilot.press("enter")
        await wait_until(lambda: "1" in _text(app).splitlines()[-1])
        await pilot.press("escape")
        await wait_until(lambda: app.tests.task is not None and app.tests.task.done())
        await pilot.pause()
        assert "tests stopped (Esc)" in _text(app)


async def test_draft_and_queue_survive_a_crash(tui_app: MakeApp, repo: Path) -> None:
    store = SessionStore(repo)
    store.save_queue(["queued one", "queued two"])
    app = await tui_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"half a thought")
        # the draft is saved ~0.2 s after the last key
        await wait_until(lambda: store.load().draft == "half a thought", 10)
    # a new app on the same repo (as after a crash: nothing was cleaned up)
    again = await tui_app()
    async with again.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        assert again.query_one(Prompt).text == "half a thought"
        assert again.interaction.queue == ["queued one", "queued two"]
        assert again.interaction.paused
        assert "restored your unsent draft" in _text(again)


async def test_resume_reopens_the_last_conversation(tui_app: MakeApp) -> None:
    app = await tui_app(tps=5000, max_output_tokens=40)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_turn(app, pilot, "remember the word zebra")
    again = await tui_app()
    async with again.run_test(size=(100, 30)) as pilot:
        assert again.session.history == []
        again.query_one(Prompt).load_text("/resume")
        await pilot.press("enter")
        await pilot.pause()
        assert [m.role for m in again.session.history] == ["user", "assistant"]
        assert "› remember the word zebra" in _text(again)


async def _command(app: SparkApp, pilot: Any, line: str) -> None:
    app.query_one(Prompt).load_text(line)
    await pilot.press("enter")
    await pilot.pause()


async def test_copy_after_a_turn_fills_the_clipboard(tui_app: MakeApp) -> None:
    app = await tui_app(tps=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_turn(app, pilot, "explain app.py")
        await _command(app, pilot, "/copy")
        from spark_cli.tui.commands.copying import last_answer

        assert app.clipboard and app.clipboard == last_answer(app.session.history)
        assert "copied the last answer" in _text(app)


async def test_model_and_provider_switch(tui_app: MakeApp) -> None:
    app = await tui_app(tps=5000, max_output_tokens=40)
    async with app.run_test(size=(100, 30)) as pilot:
        await _command(app, pilot, "/model spark-rules")
        assert app.session.settings.provider.model == "spark-rules"
        assert "now mock · spark-rules" in _text(app)
        before = _text(app)
        await _command(app, pilot, "/provider nosuch")
        said = _text(app)[len(before):]
        assert "✗" in said and "nosuch" in said
        assert app.session.settings.provider.name == "mock"


async def test_add_refuses_missing_binary_and_ignored_files(tui_app: MakeApp, repo: Path) -> None:
    (repo / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    (repo / ".gitignore").write_text("secret.txt\n")
    (repo / "secret.txt").write_text("s\n")
    app = await tui_app()
    async with app.run_test(size=(120, 30)) as pilot:
        await _command(app, pilot, "/add nope.py logo.png secret.txt ../outside.py app.py")
        await _command(app, pilot, "/files")
        text = _text(app)
        assert "nope.py: no such file" in text
        assert text.count("✗") == 4
        assert "added app.py to the context" in text
        assert app.context_files.files() == ("app.py",)
        assert "files every turn sends: app.py" in text
        await _command(app, pilot, "/drop app.py")
        assert app.context_files.files() == ()


async def test_full_access_is_said_first(tui_app: MakeApp) -> None:
    app = await tui_app(commands="full-access")
    async with app.run_test(size=(100, 30)):
        await app.started.wait()
        assert "commands = full-access: commands run without asking and without a sandbox" \
            in _text(app)


async def test_init_writes_a_first_agents_file_as_an_undoable_edit(tui_app: MakeApp,
                                                                  repo: Path) -> None:
    app = await tui_app(model="spark-rules", tps=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        await send_turn(app, pilot, "/init")
        agents = repo / "AGENTS.md"
        assert agents.is_file(), _text(app)[-2000:]
        assert agents.read_text().startswith("# AGENTS.md")
        assert "AGENTS.md" in _text(app)
        app.query_one(Prompt).load_text("/init")  # a second time: the file is the user's now
        await pilot.press("enter")
        await wait_until(lambda: "AGENTS.md exists" in _text(app))
        await pilot.press("ctrl+z")
        await wait_until(lambda: not agents.exists())

"""Every key path of the TUI, driven by Pilot against the bundled engine over a real channel."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events as tx
from trusting import write_project
from waiting import holds, wait_until

from spark_cli.session.events import ProseDelta, TurnCompleted
from spark_cli.session.interaction import TurnEnded
from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]


def _record(app: SparkApp) -> list[Any]:
    """Every Interaction event the app sees, in order (the app's sink still runs)."""
    seen: list[Any] = []
    sink = app.interaction.sink

    def both(event: Any) -> None:
        seen.append(event)
        sink(event)

    app.interaction.sink = both
    return seen


def _key_name(char: str) -> str:
    from textual.keys import _character_to_key

    return _character_to_key(char)


def type_now(app: SparkApp, *keys: str) -> None:
    """Keys as the terminal driver delivers them (``pilot.press`` waits for idle after
    each key: ~2 s per key while a stream runs)."""
    for key in keys:
        if len(key) == 1:
            app.post_message(tx.Key(_key_name(key), key))
        else:
            app.post_message(tx.Key(key, {"enter": "\r", "tab": "\t", "escape": "\x1b"}.get(key)))


def _count(events: list[Any], kind: type) -> int:
    return sum(isinstance(e, kind) for e in events)


async def test_keys_typed_while_streaming_all_arrive(tui_app: MakeApp) -> None:
    app = await tui_app(tps=800, max_output_tokens=100_000)
    async with app.run_test(size=(100, 30)):
        events = _record(app)
        type_now(app, *"go", "enter")
        await wait_until(lambda: _count(events, ProseDelta) > 0)
        typed = "the next thought, typed fast: every key! 0123456789"
        prompt = app.query_one(Prompt)
        type_now(app, *typed)
        await wait_until(lambda: prompt.text == typed)
        assert app.interaction.busy  # still streaming while every key landed
        await app.action_interrupt()


async def test_esc_stops_rendering_and_generation(tui_app: MakeApp) -> None:
    app = await tui_app(tps=600, max_output_tokens=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        type_now(app, *"write", "enter")
        await wait_until(lambda: _count(events, ProseDelta) > 2)
        type_now(app, "escape")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        transcript = app.query_one(Transcript)
        shown = transcript.plain_text()
        await holds(lambda: transcript.plain_text() == shown, 0.3, "nothing painted after Esc")
        await pilot.pause()
        assert transcript.plain_text() == shown
        done = next(e for e in events if isinstance(e, TurnCompleted))
        assert (done.status, done.reason) == ("cancelled", "interrupted")
        assert done.output_tokens < 5000  # the engine stopped generating
        assert "cancelled (interrupted)" in shown
        assert app.query_one(Prompt).has_focus


async def test_enter_while_streaming_steers_on_the_websocket(tui_app: MakeApp) -> None:
    app = await tui_app(tps=500, max_output_tokens=600)
    async with app.run_test(size=(100, 30)):
        events = _record(app)
        type_now(app, *"first", "enter")
        await wait_until(lambda: _count(events, ProseDelta) > 0)
        type_now(app, *"instead", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        text = app.query_one(Transcript).plain_text()
        assert "↪ instead  (steering in-band)" in text
        assert "↪ redirected: the answer continues from here" in text
        assert [m.content for m in app.session.history if m.role == "user"][-1] == "instead"


async def test_enter_while_streaming_resends_without_steer(tui_app: MakeApp) -> None:
    app = await tui_app(tps=500, max_output_tokens=3000, provider="openai-compatible")
    async with app.run_test(size=(100, 30)):
        events = _record(app)
        type_now(app, *"first", "enter")
        await wait_until(lambda: _count(events, ProseDelta) > 0)
        type_now(app, *"instead", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 2)
        text = app.query_one(Transcript).plain_text()
        assert "↪ instead  (stopping and resending)" in text
        assert "› (redirect) instead" in text


async def test_tab_queues_and_the_queue_survives_esc(tui_app: MakeApp) -> None:
    app = await tui_app(tps=500, max_output_tokens=5000)
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        type_now(app, *"first", "enter")
        await wait_until(lambda: _count(events, ProseDelta) > 0)
        type_now(app, *"second", "tab", *"third", "tab")
        await wait_until(lambda: len(app.interaction.queue) == 2)
        assert app.interaction.queue == ["second", "third"]
        assert app.query_one(Prompt).text == ""
        type_now(app, "escape")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()
        queue_view = str(app.query_one("#queue").render())
        assert "paused" in queue_view and "1. second" in queue_view and "2. third" in queue_view
        assert app.interaction.queue == ["second", "third"]
        type_now(app, "enter")  # an empty prompt: resume the queue
        await wait_until(lambda: _count(events, TurnEnded) >= 2)
        assert "› (queued) second" in app.query_one(Transcript).plain_text()
        await app.action_interrupt()


async def test_no_test_command_runs_in_a_normal_turn(tui_app: MakeApp, repo: Path) -> None:
    marker = repo / "tests-ran"
    write_project(repo, f'test_command = "touch {marker}"\n')  # trusted: it is read
    (repo / "pytest.ini").write_text("[pytest]\n")
    app = await tui_app(tps=5000, model="spark-rules")
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        app.context_files.add("app.py")
        await pilot.press(*"rename total_price to grand_total", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()  # what the end of the turn set off has started
        assert app.tests.task is None  # the TUI runs tests through /test alone
    assert "grand_total" in (repo / "app.py").read_text()
    assert not marker.exists()


async def test_unknown_command_and_bad_arguments_say_so(tui_app: MakeApp) -> None:
    app = await tui_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press(*"/frobnicate", "enter", *"/queue edit 9", "enter")
        await pilot.pause()
        text = app.query_one(Transcript).plain_text()
        assert "unknown command /frobnicate: /help lists them" in text
        assert "no queued message 9 (the queue has 0)" in text
        assert not app.interaction.busy


async def test_page_keys_scroll_the_transcript_and_the_prompt_keeps_its_text(
        tui_app: MakeApp) -> None:
    app = await tui_app()
    async with app.run_test(size=(100, 20)) as pilot:
        for _ in range(4):
            await pilot.press(*"/help", "enter")
        await pilot.press(*"draft")
        await pilot.pause()
        transcript = app.query_one(Transcript)
        assert transcript.following and transcript.max_scroll_y > 20
        end = transcript.scroll_offset.y
        await pilot.press("pageup")
        await pilot.pause()
        assert transcript.scroll_offset.y < end and not transcript.following
        await pilot.press("pagedown", "pagedown", "pagedown")
        await pilot.pause()
        assert transcript.scroll_offset.y == end and transcript.following
        prompt = app.query_one(Prompt)
        assert prompt.text == "draft" and prompt.has_focus
        await pilot.press("pageup", "pageup")
        await pilot.pause()
        assert not transcript.following
        await pilot.press("ctrl+u", *"/help", "enter")  # sending brings the end back
        await pilot.pause()
        assert transcript.following
        assert transcript.scroll_offset.y >= transcript.max_scroll_y - 1
        await pilot.press("pageup", "pageup", "ctrl+o")  # so does a key that answers
        await pilot.pause()
        assert transcript.following and "no tool call" in transcript.plain_text()[-200:]


async def test_ctrl_c_copies_a_mouse_selection_and_keeps_the_prompt(tui_app: MakeApp) -> None:
    app = await tui_app()
    async with app.run_test(size=(100, 20)) as pilot:
        await pilot.press(*"/help", "enter", *"draft")
        await pilot.pause()
        transcript = app.query_one(Transcript)
        await pilot.mouse_down(transcript, offset=(1, 2))  # the transcript's padding is 1
        await pilot.hover(transcript, offset=(30, 4))
        await pilot.mouse_up(transcript, offset=(30, 4))
        await pilot.pause()
        selected = app.screen.get_selected_text()
        assert selected and selected.count("\n") == 2
        await pilot.press("ctrl+c")
        await pilot.pause()
        assert app.clipboard == selected
        assert "copied 3 lines to the clipboard" in transcript.plain_text()
        assert app.query_one(Prompt).text == "draft" and not app.screen.selections
        await pilot.press("ctrl+c")  # no selection: Ctrl+C clears the prompt as before
        assert app.query_one(Prompt).text == ""
        await pilot.mouse_down(transcript, offset=(1, 2))
        await pilot.hover(transcript, offset=(30, 4))
        await pilot.mouse_up(transcript, offset=(30, 4))
        await pilot.pause()
        assert app.screen.selections
        await pilot.press("escape")  # Esc lets go of a selection
        assert not app.screen.selections


async def test_a_10000_line_paste_lands_whole(tui_app: MakeApp) -> None:
    app = await tui_app()
    async with app.run_test(size=(100, 30)) as pilot:
        pasted = "".join(f"line {i}\n" for i in range(10_000))
        app.post_message(tx.Paste(pasted))  # as the driver delivers a bracketed paste
        await pilot.pause()
        assert app.query_one(Prompt).text == pasted
        assert not app.interaction.busy  # a paste never sends


async def test_a_40x10_terminal_still_shows_prompt_and_hud(tui_app: MakeApp) -> None:
    app = await tui_app(tps=3000, max_output_tokens=300)
    async with app.run_test(size=(40, 10)) as pilot:
        events = _record(app)
        type_now(app, *"hi", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()
        prompt = app.query_one(Prompt)
        hud = app.query_one("#hud")
        assert prompt.region.height >= 3 and prompt.region.bottom <= 10
        assert hud.region.height == 1 and hud.region.y == 9
        await pilot.press(*"still typing")
        assert prompt.text == "still typing"


async def test_a_provider_that_is_down_keeps_the_draft(repo: Path, tmp_path: Path,
                                                       tui_connect: Any) -> None:
    from spark_cli.session.config.settings import load_settings
    from spark_cli.session.conversation import Session
    from spark_cli.tui.setup import TuiSetup

    settings = load_settings(repo, {"provider": "openai-compatible", "model": "m",
                                    "base_url": "http://127.0.0.1:9/v1"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), "SPARK_API_KEY": "k"})
    app = SparkApp(TuiSetup(session=Session(None, repo, settings), connect=tui_connect))
    async with app.run_test(size=(100, 30)) as pilot:
        events = _record(app)
        await pilot.press(*"do the thing", "enter")
        await wait_until(lambda: _count(events, TurnEnded) == 1)
        await pilot.pause()
        assert app.query_one(Prompt).text == "do the thing"
        assert "✗" in app.query_one(Transcript).plain_text()

"""The deep track from the TUI: /deep runs in the background while fast turns stream, its
change is reviewed and merged per hunk (conflicts refused), undone as one batch, cancelled."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from waiting import wait_until

from spark_cli.session.config.settings import load_settings
from spark_cli.session.interaction import TurnEnded
from spark_cli.tui.app import SparkApp
from spark_cli.tui.deep.deep_commands import selection
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]
UTIL = "def load(path):\n    return open(path).read()\n"
MAIN = "from util import load\n\n\ndef main():\n    return load('x')\n"


def _text(app: SparkApp) -> str:
    return app.query_one(Transcript).plain_text()


async def _command(app: SparkApp, pilot: Any, line: str) -> None:
    app.query_one(Prompt).load_text(line)
    await pilot.press("enter")
    await pilot.pause()


async def _deep_app(tui_app: MakeApp, repo: Path) -> SparkApp:
    """An app whose deep track is spark-deep on the same bundled engine as the fast track."""
    (repo / "util.py").write_text(UTIL)
    (repo / "main.py").write_text(MAIN)
    app = await tui_app(tps=400, max_output_tokens=4000)
    fast = app.session.settings.provider
    deep = load_settings(repo, {"provider": "mock", "model": "spark-deep",
                                "base_url": fast.base_url},
                         {"SPARK_CONFIG_DIR": str(repo.parent / "cfg"),
                          "SPARK_API_KEY": fast.api_key or ""})
    app.deep.open(deep)
    return app


async def test_a_deep_task_runs_while_fast_turns_stream_and_merges(
        tui_app: MakeApp, repo: Path) -> None:
    app = await _deep_app(tui_app, repo)
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/deep rename load to fetch everywhere")
        assert app.deep.track is not None and app.deep.track.active
        ended: list[Any] = []
        sink = app.interaction.sink
        app.interaction.sink = lambda e: (ended.append(e) if isinstance(e, TurnEnded)
                                          else None, sink(e))[-1]
        app.query_one(Prompt).load_text("write a lot")
        await pilot.press("enter")  # a fast turn while the deep task works
        await wait_until(lambda: bool(ended))
        assert "deep #1" in app.query_one("#hud").shown  # type: ignore[attr-defined]
        await wait_until(lambda: app.deep.track is not None and not app.deep.track.active, 60)
        assert "deep #1 done" in _text(app)
        assert (repo / "util.py").read_text() == UTIL  # nothing lands before you apply
        await _command(app, pilot, "/deep show 1")
        assert "util.py:1 clean" in _text(app)
        await _command(app, pilot, "/deep apply 1 util.py:1")  # one hunk
        await wait_until(lambda: "def fetch(path)" in (repo / "util.py").read_text())
        assert "load" in (repo / "main.py").read_text()  # only what was picked
        await _command(app, pilot, "/undo")
        await wait_until(lambda: (repo / "util.py").read_text() == UTIL)


async def test_a_conflicting_hunk_is_refused(tui_app: MakeApp, repo: Path) -> None:
    app = await _deep_app(tui_app, repo)
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/deep rename load to fetch everywhere")
        await wait_until(lambda: app.deep.track is not None and not app.deep.track.active, 60)
        (repo / "main.py").write_text(MAIN.replace("load('x')", "load('y')"))  # the user
        await _command(app, pilot, "/deep apply 1")
        await wait_until(lambda: "✗ main.py" in _text(app))
        assert "conflict" in _text(app)
        assert (repo / "main.py").read_text() == MAIN.replace("load('x')", "load('y')")


async def test_cancel_leaves_the_tree_untouched(tui_app: MakeApp, repo: Path) -> None:
    app = await _deep_app(tui_app, repo)
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/deep rename load to fetch everywhere")
        await _command(app, pilot, "/deep cancel 1")
        await wait_until(lambda: "deep #1 cancelled" in _text(app))
        assert app.deep.track is not None and app.deep.track.tasks[0].state == "cancelled"
    assert (repo / "util.py").read_text() == UTIL and (repo / "main.py").read_text() == MAIN


async def test_bad_deep_commands_say_so(tui_app: MakeApp, repo: Path) -> None:
    app = await _deep_app(tui_app, repo)
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/deep show 7")
        await _command(app, pilot, "/deep apply x")
        text = _text(app)
        assert "no deep task #7 (there are: none)" in text
        assert "usage: /deep TASK" in text


def test_selection_reads_files_hunks_and_all() -> None:
    assert selection([]) == selection(["all"])
    assert selection(["a.py", "b.py"]).files == frozenset({"a.py", "b.py"})  # type: ignore[union-attr]
    assert selection(["a.py:2"]).hunks == frozenset({("a.py", 2)})  # type: ignore[union-attr]
    assert isinstance(selection(["a.py", "b.py:1"]), str)


async def test_the_hint_suggests_deep_and_never_routes(tui_app: MakeApp, repo: Path) -> None:
    from types import SimpleNamespace

    app = await _deep_app(tui_app, repo)
    async with app.run_test(size=(110, 40)) as pilot:
        hint = app.query_one("#hint")
        await pilot.press(*"migrate util to pathlib")
        await wait_until(lambda: hint.display)
        assert "/deep" in str(hint.render())
        app.query_one(Prompt).load_text("fix the typo")
        await wait_until(lambda: not hint.display)
        app.session.context = SimpleNamespace(used=100_000)  # type: ignore[assignment]
        app.query_one(Prompt).load_text("fix the typo")
        await wait_until(lambda: hint.display)  # the conversation fills most of the window
        assert app.deep.track is not None and app.deep.track.tasks == []  # nothing was routed

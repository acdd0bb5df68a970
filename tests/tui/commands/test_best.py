"""`/best N MESSAGE` in the app: lanes while it races, the winner merged, show, pick, Esc."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual.widgets import Static
from waiting import wait_until

from spark_cli.tui.app import SparkApp
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]
APP = ("def total_price(items):\n    return sum(items)\n\n\n"
       "def main():\n    return total_price([1])\n")


async def _command(app: SparkApp, pilot: Any, line: str) -> None:
    app.query_one(Prompt).load_text(line)
    await pilot.press("enter")
    await pilot.pause()


def _text(app: SparkApp) -> str:
    return app.query_one(Transcript).plain_text()


async def test_best_races_merges_the_winner_and_picks_another(tui_app: MakeApp,
                                                              repo: Path) -> None:
    (repo / "app.py").write_text(APP)
    app = await tui_app(model="spark-rules")
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/best 2 rename total_price to grand_total in app.py")
        await wait_until(lambda: "chosen" in _text(app), 60)
        await wait_until(lambda: "grand_total" in (repo / "app.py").read_text())
        lanes = str(app.query_one("#lanes", Static).render())
        assert "★" in lanes and lanes.count("tok/s") == 2
        loser = 2 if "★ 1" in lanes else 1
        await _command(app, pilot, f"/best show {loser}")
        await wait_until(lambda: f"candidate {loser} · seed" in _text(app))
        await _command(app, pilot, f"/best pick {loser}")
        await wait_until(lambda: _text(app).count("(/undo reverts it)") == 2, 60,
                         lambda: _text(app)[-600:])  # what the pick said, if it fails
        assert "grand_total" in (repo / "app.py").read_text()
        await _command(app, pilot, "/undo")  # one batch: back to the start
        await wait_until(lambda: (repo / "app.py").read_text() == APP)


async def test_esc_stops_every_candidate(tui_app: MakeApp, repo: Path) -> None:
    (repo / "app.py").write_text(APP)
    app = await tui_app(tps=20, model="spark-rules")
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/best 3 rename total_price to grand_total in app.py")
        await wait_until(lambda: "streaming" in str(app.query_one("#lanes", Static).render()))
        await pilot.press("escape")
        await wait_until(lambda: "stopped (Esc): nothing applied" in _text(app))
        assert str(app.query_one("#lanes", Static).render()).count("stopped") == 3
        assert (repo / "app.py").read_text() == APP


async def test_bad_best_commands_say_how(tui_app: MakeApp, repo: Path) -> None:
    app = await tui_app()
    async with app.run_test(size=(110, 40)) as pilot:
        await _command(app, pilot, "/best 9 do it")
        await _command(app, pilot, "/best show 1")
        await wait_until(lambda: "usage: /best N MESSAGE" in _text(app)
                         and "no candidate 1 in the last race" in _text(app))

"""`/best N MESSAGE`: a race with one lane per candidate above the prompt (Esc stops it), the
winner merged as one undo batch; ``/best show K`` and ``/best pick K`` (undo, merge K).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from spark_cli.session.api import Connector, SessionApi
from spark_cli.tui.output import Busy, Output

if TYPE_CHECKING:
    from spark_cli.session.race import Candidate, Race, RaceResult

USAGE = "usage: /best N MESSAGE (N 2-8) · /best show K · /best pick K"
EVERY_S = 0.1


def lane(cand: Candidate, winner: int | None) -> str:
    """One compact line: ``★ 2 tests ✓ 412 tok 1,980 tok/s ±6 lines``."""
    v, state = cand.verdicts, str(cand.state)
    if state == "failed":
        state = f"dropped: {cand.error}"[:60]
    elif v is not None and state == "done":
        state = ("parse ✗" if v.applied and not v.parses else "applied" if v.check is None
                 else "tests ✓" if v.check else f"tests ✗ ({cand.check_note})")
        state = state if v.applied else "refused ✗" if cand.refused else "no edit ✗"
    diff = v.diff_lines if v is not None else cand.live_diff
    mark = "★" if cand.number == winner else " "
    return (f"{mark} {cand.number} {state:<12} {cand.tokens:>6,} tok {cand.rate:>7,.0f} tok/s "
            f"±{diff} lines")


class BestController:
    """``/best`` for one app: the race running now and the last one's result."""

    def __init__(self, session: SessionApi, connect: Connector, out: Output, *,
                 lanes: Callable[[str | None], None], busy: Busy,
                 spawn: Callable[[Any], None]) -> None:
        self.session, self.connect, self.out = session, connect, out
        self.lanes, self.busy, self.spawn = lanes, busy, spawn
        self.race: Race | None = None
        self.result: RaceResult | None = None
        self.merged: str | None = None
        """The undo batch of the candidate merged last (``pick`` replaces it)."""
        self._shown = 0.0

    @property
    def running(self) -> bool:
        return self.race is not None

    def stop(self) -> bool:
        """Esc: stop every candidate; True when a race was running."""
        if self.race is None:
            return False
        self.race.stop()
        return True

    async def command(self, args: list[str]) -> None:
        if len(args) == 2 and args[0] in ("show", "pick") and args[1].isdigit():
            cand = self._candidate(int(args[1]))
            if cand is not None:
                await (self._show(cand) if args[0] == "show" else self._pick(cand))
            return
        if len(args) < 2 or not args[0].isdigit() or not 2 <= int(args[0]) <= 8:
            self.out.note(USAGE, "yellow")
            return
        if self.running or self.busy():
            self.out.note("a turn or a race is running: Esc first, then /best", "yellow")
            return
        from spark_cli.session.race import Race  # deferred: TUI launch

        settings = self.session.settings
        check = settings.best_of_check or None
        message = " ".join(args[1:])
        self.race = Race(self.session.root, settings, self.connect, int(args[0]), check,
                         settings.best_of_check_timeout_s, self._moved)
        self.out.note(f"best of {args[0]}: {message}", "bold")
        self.spawn(self._run(self.race, message))

    def _moved(self, cand: Candidate) -> None:
        now = time.monotonic()
        if cand.state in ("streaming", "starting") and now - self._shown < EVERY_S:
            return
        self._shown = now
        if self.race is not None:
            self.lanes("\n".join(lane(c, None) for c in self.race.candidates))

    async def _run(self, race: Race, message: str) -> None:
        try:
            result = await race.run(message, [])
        finally:
            self.race = None
        self.result = result
        winner = result.winner.number if result.winner else None
        self.lanes("\n".join(lane(c, winner) for c in result.candidates))
        if all(c.state == "stopped" for c in result.candidates):
            self.out.note("best of N stopped (Esc): nothing applied", "yellow")
            return
        if result.winner is None:
            near = result.nearest
            self.out.note("no candidate passes; nothing applied" + (
                f" (nearest: {near.number}, {near.verdict})" if near else ""), "bold red")
            return
        self.out.note(f"★ candidate {winner} chosen: {result.reason}", "bold green")
        await self._merge(result.winner)

    async def _merge(self, cand: Candidate) -> None:
        assert cand.change is not None
        report = await asyncio.to_thread(cand.change.apply, self.session.root)
        self.merged = report.batch_id
        self.out.note(f"candidate {cand.number}: {report.message} (/undo reverts it)",
                      "bold red" if report.refused or report.error else "green")
        if report.applied:
            self.session.files_changed()

    def _candidate(self, number: int) -> Candidate | None:
        cands = self.result.candidates if self.result is not None else ()
        if not 1 <= number <= len(cands):
            self.out.note(f"no candidate {number} in the last race (/best N MESSAGE starts "
                          "one)", "yellow")
            return None
        return cands[number - 1]

    async def _show(self, cand: Candidate) -> None:
        from spark_cli.tui.transcript.edit_view import diff_syntax  # deferred: TUI launch

        self.out.note(f"candidate {cand.number} · seed {cand.seed} · temperature "
                      f"{cand.temperature} · {cand.verdict}", "bold")
        self.out.note(lane(cand, None))
        for f in cand.change.files if cand.change is not None else ():
            self.out.write(diff_syntax(f.diff))

    async def _pick(self, cand: Candidate) -> None:
        # deferred: TUI launch
        from spark_cli.session.workspace.changes import latest_batch_id, undo_last_batch

        if cand.change is None or cand.change.empty:
            self.out.note(f"candidate {cand.number} has no change to merge", "yellow")
            return
        latest = await asyncio.to_thread(latest_batch_id, self.session.root)
        if self.merged is not None:
            if latest != self.merged:
                self.out.note("the merged candidate is not the last undo batch: /undo to it "
                              "first", "yellow")
                return
            undone = await asyncio.to_thread(undo_last_batch, self.session.root)
            if undone.status != "undone":
                self.out.note(f"cannot switch: {undone.message}", "bold red")
                return
        await self._merge(cand)

"""`spark edit FILE... --best-of N`: the race's channels (one shared bundled engine, one
connection per candidate, no retry), its JSON events and stderr table, and the merge.
Exit codes: 0 merged, 1 a hunk refused (named), 4 no candidate passes, 3 none finished,
124 ``--timeout`` stopped it (a winner among those that finished is still merged).
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, cast

from spark_cli.cli import wiring
from spark_cli.cli.edit import turn_result as exits
from spark_cli.cli.edit.edit_settings import say
from spark_cli.protocol.channel import Channel, ChannelError
from spark_cli.session.api import Connector
from spark_cli.session.config.settings import Settings
from spark_cli.session.race import Candidate, Race, RaceResult
from spark_cli.session.spend.limits import Limits

RUN_THE_TESTS = "run the tests"
HEAD = ("#", "tokens", "seconds", "applied", "parses", "check", "diff", "verdict")


def check_for(settings: Settings, instruction: str, run_tests: bool) -> str | None:
    """``best_of_check``, else the test command ("") if ``--test`` or "run the tests" ask."""
    if settings.best_of_check:
        return settings.best_of_check
    return "" if run_tests or RUN_THE_TESTS in instruction.lower() else None


def _mark(value: bool | None) -> str:
    return "-" if value is None else "yes" if value else "no"


def row(cand: Candidate) -> tuple[str, ...]:
    """A candidate's row of the table: its ``candidate_finished`` verdicts."""
    e = finished_event(cand)
    return (str(cand.number), str(cand.tokens), f"{cand.seconds:.1f}", _mark(e["applied"]),
            _mark(e["parses"]), cand.check_note or "-", str(e["diff_lines"]).replace("None", "-"),
            cand.verdict)


def table(result: RaceResult) -> list[str]:
    rows = [HEAD, *(row(c) for c in result.candidates)]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEAD))]
    winner = result.winner.number if result.winner else None
    return [("* " if r[0] == str(winner) else "  ") +
            "  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)).rstrip()
            for r in rows]


class _Events:
    """``candidate_started`` once a candidate streams, ``candidate_finished`` once it ends
    (stream-json: as ``system`` lines of those subtypes)."""

    def __init__(self, renderer: Any) -> None:
        self.emit = emitter(renderer)
        self.started: set[int] = set()
        self.finished: set[int] = set()

    def __call__(self, cand: Candidate) -> None:
        if self.emit is None:
            return
        if cand.number not in self.started:
            self.started.add(cand.number)
            self.emit({"type": "candidate_started", "candidate": cand.number,
                       "seed": cand.seed, "temperature": cand.temperature})
        if cand.state in ("done", "failed", "stopped") and cand.number not in self.finished:
            self.finished.add(cand.number)
            self.emit(finished_event(cand))


def emitter(renderer: Any) -> Callable[[dict[str, Any]], None] | None:
    """How a race event is written: a JSON line, a stream-json ``system`` line, or not."""
    return getattr(renderer, "system", None) or getattr(renderer, "emit", None)


def finished_event(cand: Candidate) -> dict[str, Any]:
    v = cand.verdicts
    return {"type": "candidate_finished", "candidate": cand.number, "verdict": cand.verdict,
            "tokens": cand.tokens, "seconds": round(cand.seconds, 3),
            "applied": None if v is None else v.applied,
            "parses": None if v is None else v.parses,
            "check": None if v is None else v.check, "check_result": cand.check_note or None,
            "diff_lines": None if v is None else v.diff_lines, "error": cand.error}


async def race(root: Path, settings: Settings, files: list[str], instruction: str, n: int,
               check: str | None, notify: Any, seed: int | None = None, *,
               limits: Limits | None = None, deep: Settings | None = None) -> RaceResult:
    """Run the race on ``settings``' provider (and ``deep``'s), one connection per request."""

    @contextlib.asynccontextmanager
    async def connect(s: Settings) -> AsyncIterator[Channel]:
        try:
            async with wiring.open_provider_channel(
                    s.provider, idle_timeout=s.idle_timeout, max_retries=0,
                    first_token_timeout=s.first_token_timeout) as channel:
                yield channel
        except wiring.WiringError as exc:
            raise ChannelError("bad_request", str(exc)) from None

    async with contextlib.AsyncExitStack() as stack:
        shared = replace(settings, provider=await stack.enter_async_context(
            wiring.shared_provider(settings.provider)))
        if deep is not None:
            deep = replace(deep, provider=await stack.enter_async_context(
                wiring.shared_provider(deep.provider)))
        run = Race(root, shared, cast(Connector, connect), n, check,
                   settings.best_of_check_timeout_s, notify, seed, limits, deep)
        return await run.run(instruction, files)


def best_of(root: Path, settings: Settings, files: list[str], instruction: str, n: int, *,
            renderer: Any, run_tests: bool, dry_run: bool = False,
            limits: Limits | None = None, deep: Settings | None = None) -> int:
    """The `spark edit --best-of N` run; its exit code (the summary says it too)."""
    renderer.begin({"cwd": str(root), "model": settings.provider.model, "tools": [],
                    "provider": settings.provider.name, "permission_mode": settings.commands})
    result = asyncio.run(race(root, settings, files, instruction, n,
                              check_for(settings, instruction, run_tests), _Events(renderer),
                              limits=limits, deep=deep))
    code = _end(root, result, renderer, dry_run)
    if result.timed_out:
        say("spark edit: --timeout ran out: the race stopped")
        code = exits.EXIT_TIMEOUT
    if emitter(renderer) is not None:
        renderer.summary({"best_of": n, "exit_code": code, "dry_run": dry_run,
                          "winner": result.winner.number if result.winner else None,
                          **({"status": "cancelled", "reason": "timeout", "timed_out": True}
                             if result.timed_out else {})})
    return code


def _end(root: Path, result: RaceResult, renderer: Any, dry_run: bool) -> int:
    """The table, then the winner merged (or why none was)."""
    for line in table(result):
        print(line, file=sys.stderr)
    emit = emitter(renderer)
    winner = result.winner
    if winner is None or winner.change is None:
        near = result.nearest
        if near is None:
            say("spark edit: no candidate finished (" + "; ".join(
                f"{c.number}: {c.error}" for c in result.candidates) + ")")
            return exits.EXIT_PROVIDER
        say(f"spark edit: no candidate passes; the nearest, candidate {near.number}: "
            f"{near.verdict}")
        return exits.EXIT_TESTS
    if emit is not None:
        emit({"type": "candidate_chosen", "candidate": winner.number, "reason": result.reason})
    say(f"spark edit: candidate {winner.number} chosen: {result.reason}")
    if dry_run:
        for f in winner.change.files:
            renderer.diff(f.path, f.diff)
        return exits.EXIT_OK
    report = winner.change.apply(root)
    for f in winner.change.files:
        if any(p == f.path for p, _ in report.applied):
            renderer.diff(f.path, f.diff)
    say(f"spark edit: {report.message}")
    return exits.EXIT_REFUSED if report.refused or report.error else exits.EXIT_OK

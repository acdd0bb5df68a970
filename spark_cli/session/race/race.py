"""Best of N: race N candidates on one provider, judge each as it finishes, stop the rest
once a passing one cannot be beaten; ``winner.change.apply(root)`` merges the winner."""

from __future__ import annotations

import asyncio
import itertools
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from spark_cli.record import record
from spark_cli.session.api import Connector
from spark_cli.session.config.layers import MAX_BEST_OF
from spark_cli.session.config.settings import Settings
from spark_cli.session.deep.snapshot import Snapshot
from spark_cli.session.race.candidate import Candidate, run_candidate, run_check
from spark_cli.session.race.deep_judge import deep_pick
from spark_cli.session.race.judge import Pick, Verdicts, best_failing, can_beat, choose, tied
from spark_cli.session.spend.limits import Limits

SEEDED = frozenset({"mock", "chat_sse", "ollama"})
"""Providers whose requests take a ``seed`` (OpenAI's Responses API refuses one)."""
PARALLEL_CHECKS = 2
"""Checks of different answers that run at once (a later-ranked one waits for a slot)."""
TEMPERATURE = (0.2, 1.0)


@record
class RaceResult:
    """Who won and why; ``nearest`` is the best failing candidate when none passed."""

    candidates: tuple[Candidate, ...]
    winner: Candidate | None
    reason: str
    nearest: Candidate | None = None
    timed_out: bool = False


def sampling(kind: str, n: int, number: int,
             base_seed: int | None) -> tuple[int | None, float | None]:
    """Candidate ``number``'s (seed, temperature): a plain answer (n = 1) keeps the
    provider's temperature and has a seed only when one was given."""
    seed = base_seed + number if base_seed is not None and kind in SEEDED else None
    if n == 1:
        return seed, None
    low, high = TEMPERATURE
    return seed, round(low + (high - low) * (number - 1) / (n - 1), 3)


@dataclass(eq=False)
class Race:
    """One race: its candidates (live state, numbered 1..n) and how to stop them."""

    root: Path
    settings: Settings
    connect: Connector
    n: int
    check: str | None = None
    """None: no check; "": the test command; else the command line."""
    check_timeout: float = 120.0
    notify: Callable[[Candidate], None] = lambda cand: None
    seed: int | None = None
    limits: Limits | None = None
    """``--max-turns`` for each candidate's session; ``--timeout`` stops the whole race."""
    deep: Settings | None = None
    """``--judge deep``: the deep track's settings, for the last tiebreak."""
    candidates: list[Candidate] = field(default_factory=list)
    timed_out: bool = False
    _tasks: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    """The candidates' (1..n) and the deep tiebreak's (0): what ``stop`` cancels."""
    _order: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    _settled: dict[int, asyncio.Event] = field(default_factory=dict)
    _checks: dict[tuple[tuple[str, str | None], ...], asyncio.Future[tuple[bool, str]]] = \
        field(default_factory=dict)
    _pick: Pick | None = None

    def __post_init__(self) -> None:
        if not 1 <= self.n <= MAX_BEST_OF:
            raise ValueError(f"--best-of must be 1 to {MAX_BEST_OF}, not {self.n}")
        base = self.seed if self.seed is not None or self.n == 1 else random.randrange(1 << 30)
        kind = self.settings.provider.kind
        self.candidates = [Candidate(k, *sampling(kind, self.n, k, base))
                           for k in range(1, self.n + 1)]
        self._settled = {k: asyncio.Event() for k in range(1, self.n + 1)}

    async def run(self, instruction: str, files: Sequence[str]) -> RaceResult:
        outer = self.notify

        def heard(cand: Candidate) -> None:
            outer(cand)
            if cand.state in ("done", "failed", "stopped"):
                self._settled[cand.number].set()
            if cand.verdicts is not None and cand.state == "done":
                self._stop_hopeless()

        self.notify = heard
        deadline = self.limits.deadline if self.limits is not None else None
        alarm = None if deadline is None else asyncio.get_running_loop().call_at(
            deadline, self.stop, True)
        try:
            for cand in self.candidates:
                self._tasks[cand.number] = asyncio.create_task(
                    run_candidate(cand, self, instruction, files, lambda _: next(self._order)))
            await asyncio.gather(*self._tasks.values(), return_exceptions=True)
            both = [self.candidates[k - 1] for k in tied(self._judged())]
            if self.deep is not None and len(both) > 1 and not self.timed_out:
                ask = self._tasks[0] = asyncio.ensure_future(
                    deep_pick(self.deep, self.connect, instruction, both))
                await asyncio.wait([ask])  # (Esc and --timeout stop it too)
                self._pick = (None, "stopped") if ask.cancelled() else ask.result()
        finally:
            if alarm is not None:
                alarm.cancel()
            self.notify = outer
            self.stop()
            for check in self._checks.values():
                check.cancel()  # (killed and reaped before the loop may close)
            await asyncio.gather(*self._checks.values(), return_exceptions=True)
        return self.result()

    async def check_of(self, cand: Candidate, snap: Snapshot) -> tuple[bool, str]:
        """``cand``'s check, once fewer than ``PARALLEL_CHECKS`` better-ranked ones are being
        checked; an answer the same as one already checked shares that check's result."""
        assert cand.verdicts is not None and cand.change is not None
        while len(ahead := [c for c in self.candidates if c.state == "checking" and c is not cand
                            and c.verdicts is not None
                            and c.verdicts.rank() < cand.verdicts.rank()]) >= PARALLEL_CHECKS:
            await self._settled[ahead[0].number].wait()
        key = tuple((f.path, f.theirs) for f in cand.change.files)
        if key not in self._checks:
            self._checks[key] = asyncio.ensure_future(run_check(self, snap))
        return await asyncio.shield(self._checks[key])

    def stop(self, timed_out: bool = False) -> None:
        """Stop every candidate still running (Esc, or ``--timeout``: ``timed_out``)."""
        self.timed_out |= timed_out
        for task in self._tasks.values():
            task.cancel()

    def _judged(self) -> list[tuple[int, Verdicts]]:
        return [(c.number, c.verdicts) for c in self.candidates
                if c.state == "done" and c.verdicts is not None]

    def _stop_hopeless(self) -> None:
        chosen = choose(self._judged())
        if chosen is None:
            return
        best = self.candidates[chosen[0] - 1].verdicts
        assert best is not None
        for cand in self.candidates:
            task = self._tasks.get(cand.number)
            if task is None or task.done() or cand.state in ("done", "failed", "stopped"):
                continue
            judged = cand.verdicts if cand.state == "checking" else None
            if not can_beat(best, finished=judged, live_diff=None if judged else cand.live_diff,
                            ties=self.deep is not None):
                task.cancel()

    def result(self) -> RaceResult:
        judged = self._judged()
        chosen = choose(judged, self._pick)
        cands = tuple(self.candidates)
        if chosen is not None:
            return RaceResult(cands, cands[chosen[0] - 1], chosen[1], timed_out=self.timed_out)
        near = best_failing(judged)
        return RaceResult(cands, None, "no candidate passes",
                          cands[near - 1] if near is not None else None, self.timed_out)

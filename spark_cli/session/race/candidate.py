"""One best-of candidate: its answer streamed into its own scratch tree (a deep-track
snapshot), then judged (applied, parses) and checked there as ``/test`` runs."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.lang.syntax import first_error, parse_text
from spark_cli.protocol.channel import Channel, ChannelEvent, TextDelta, TurnRequest
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.actions.test_runs import NoTestCommand, run_requested_tests
from spark_cli.session.config.settings import Settings
from spark_cli.session.deep.deep_run import _remove, collect_change
from spark_cli.session.deep.snapshot import Snapshot, take_snapshot
from spark_cli.session.deep.task import DeepChange
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.race.judge import Verdicts

State = Literal["starting", "streaming", "checking", "done", "failed", "stopped"]


@dataclass(eq=False)
class Candidate:
    """One candidate's live state (a front end reads it) and its result."""

    number: int
    seed: int | None
    temperature: float | None
    state: State = "starting"
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)
    first_token: float | None = None
    ended: float | None = None
    live_diff: int = 0
    refused: int = 0
    verdicts: Verdicts | None = None
    check_note: str = ""
    """``passed``, ``timed out``, ``FAILED (exit 1)``, or why no check ran."""
    change: DeepChange | None = None
    error: str | None = None
    """Why it was dropped (a 429, a failed stream) or stopped."""

    @property
    def seconds(self) -> float:
        return (self.ended if self.ended is not None else time.monotonic()) - self.started

    @property
    def rate(self) -> float:
        """Tokens per second since the first token."""
        end = self.ended if self.ended is not None else time.monotonic()
        span = end - self.first_token if self.first_token is not None else 0.0
        return self.tokens / span if span > 0 else 0.0

    @property
    def verdict(self) -> str:
        """``pass``, ``fail: why``, ``dropped: why`` or ``stopped``."""
        if self.state == "stopped":
            return "stopped"
        if self.state == "failed":
            return f"dropped: {self.error}"
        if self.verdicts is None:
            return self.state
        return "pass" if self.verdicts.passed else f"fail: {self.verdicts.why}"


class _Sampled:
    """The inner channel with the candidate's seed and temperature, its tokens counted."""

    def __init__(self, inner: Channel, cand: Candidate, notify: Callable[[], None]) -> None:
        self.inner, self.cand, self.notify = inner, cand, notify

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        asked = replace(request, seed=self.cand.seed, temperature=self.cand.temperature)
        async with contextlib.aclosing(self.inner.stream(asked)) as events:
            async for event in events:
                if type(event) is TextDelta:
                    if self.cand.first_token is None:
                        self.cand.first_token = time.monotonic()
                    self.cand.tokens += count_tokens(event.text)
                    self.notify()
                yield event


def diff_lines(diff: str) -> int:
    """Lines added and removed in a unified diff."""
    return sum(1 for line in diff.splitlines()
               if line[:1] in "+-" and not line.startswith(("+++ ", "--- ")))


def _unparsed(change: DeepChange) -> str | None:
    """The first changed file that does not parse, as ``path line N``; None: all parse."""
    for f in change.files:
        language = language_for_path(f.path)
        if f.theirs is None or language is None:
            continue
        error = first_error(parse_text(language, f.theirs), language)
        if error is not None:
            return f"{f.path} line {error[0]}"
    return None


async def run_candidate(cand: Candidate, spec: Any, instruction: str, files: Sequence[str],
                        finished: Callable[[Candidate], int]) -> None:
    """Run ``cand`` to done (judged) or failed; ``spec`` is its Race; ``finished`` gives its
    finish order."""
    snap: Snapshot | None = None
    try:
        snap = await asyncio.to_thread(take_snapshot, spec.root)
        ok = await _answer(cand, spec, snap, instruction, files)
        if not ok:
            return
        cand.ended = time.monotonic()
        change = await asyncio.to_thread(collect_change, snap, f"best of {spec.n}: "
                                         f"candidate {cand.number}")
        cand.change = change
        lines = sum(diff_lines(f.diff) for f in change.files)
        unparsed = await asyncio.to_thread(_unparsed, change)
        applied = cand.refused == 0 and not change.empty
        why = ("no edit" if change.empty else f"{cand.refused} edit(s) refused"
               if not applied else f"{unparsed} does not parse" if unparsed else "")
        cand.verdicts = Verdicts(applied, unparsed is None, None, lines, finished(cand), why)
        spec.notify(cand)
        if spec.check is not None and (cand.verdicts.passed or spec.n == 1):
            cand.state = "checking"  # a plain answer's check runs whatever applied (--test's)
            spec.notify(cand)
            passed, cand.check_note = await spec.check_of(cand, snap)
            cand.verdicts = replace(cand.verdicts, check=passed, why=cand.verdicts.why or (
                "" if passed else f"check {cand.check_note}"))
        elif spec.check is not None:
            cand.verdicts = replace(cand.verdicts, check=False)
            cand.check_note = "not run"
        cand.state = "done"
    except asyncio.CancelledError:
        cand.state, cand.error = "stopped", "stopped"
        raise
    except Exception as exc:  # the boundary: one candidate never takes the race down
        cand.state, cand.error = "failed", str(exc) or type(exc).__name__
    finally:
        if cand.ended is None:
            cand.ended = time.monotonic()
        if snap is not None:
            await _remove(snap)
        spec.notify(cand)


async def _answer(cand: Candidate, spec: Any, snap: Snapshot, instruction: str,
                  files: Sequence[str]) -> bool:
    """Stream the answer into the scratch tree; False (state failed) when it broke off."""
    from spark_cli.session.conversation import Session  # deferred: TUI launch

    settings: Settings = replace(spec.settings, commands="off")  # read-only tools only
    session = Session(None, snap.root, settings, limits=spec.limits)
    failed = session.prepare(instruction, list(files))
    if failed is not None:
        cand.state, cand.error = "failed", failed.message
        return False
    cand.state = "streaming"
    spec.notify(cand)
    async with spec.connect(settings) as channel:
        session.attach(_Sampled(channel, cand, lambda: spec.notify(cand)))
        async for event in session.run_turn(instruction, list(files)):
            match event:
                case EditLanded(outcome=outcome):
                    cand.live_diff += diff_lines(outcome.diff)
                    cand.refused += len(outcome.refused)
                case EditRefused() | BlockRejected():
                    cand.refused += 1
                case TurnFailed(message=message):
                    cand.state, cand.error = "failed", message
                    return False
                case TurnCompleted(output_tokens=tokens):
                    cand.tokens = tokens or cand.tokens
    return True


async def run_check(spec: Any, snap: Snapshot) -> tuple[bool, str]:
    """Run the check inside the scratch tree; (passed, how it went)."""
    settings = replace(spec.settings, test_command=spec.check or spec.settings.test_command)
    outcome = await run_requested_tests(snap.root, settings, timeout=spec.check_timeout)
    if isinstance(outcome, NoTestCommand):
        return False, outcome.message
    return outcome.passed, outcome.verdict

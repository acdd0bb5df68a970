"""One `spark edit` turn: wire the channel, run the session, render, end diff, exit code.

Used by both front ends of `spark edit` (files in a repo, and the pipe filter,
which runs this same code inside a private temp dir). The renderer is either
``TextRenderer`` or ``JsonLinesRenderer``; both take the same calls.

Exit codes (docs/cli.md): 0 applied or nothing to apply, 1 something refused,
2 usage (incl. a request too big for the window), 3 provider/transport failure,
4 the requested tests (``--test``) failed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from spark_cli.render.events import outcome_of

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_PROVIDER, EXIT_TESTS = 0, 1, 2, 3, 4
USAGE_FAILURES = frozenset({"context_length", "usage", "request", "too_large", "binary",
                            "encoding", "budget", "not_found_file", "path"})
"""``TurnFailed.kind`` values that are the caller's to fix (exit 2), not the provider's."""


class UsageError(Exception):
    """Bad flags or inputs: one clear line on stderr, exit 2, nothing touched."""


class TurnResult:
    """What one turn came to, for the end diff, the summary and the exit code."""

    __slots__ = ("completed", "failure", "marks", "outcomes", "rejected")

    def __init__(self) -> None:
        self.outcomes: list[Any] = []
        self.rejected = 0
        self.completed: dict[str, Any] | None = None
        self.failure: tuple[str, str] | None = None  # (kind, message)
        self.marks: dict[str, float | None] = {}

    @property
    def applied(self) -> int:
        return sum(1 for o in self.outcomes if o.ok)

    @property
    def refused(self) -> int:
        return sum(1 for o in self.outcomes if not o.ok or o.partial) + self.rejected

    def exit_code(self) -> int:
        if self.failure is not None:
            return EXIT_USAGE if self.failure[0] in USAGE_FAILURES else EXIT_PROVIDER
        return EXIT_REFUSED if self.refused else EXIT_OK


def _fields(event: Any) -> dict[str, Any]:
    names = getattr(type(event), "__dataclass_fields__", {})
    return {name: getattr(event, name) for name in names}


def session_class() -> Any:
    """The session type (a seam for tests; imported lazily for start-up)."""
    from spark_cli.session.turn import Session

    return Session


async def run_turn(settings: Any, root: Path, files: Sequence[str], instruction: str,
                   renderer: Any, *, dry_run: bool) -> TurnResult:
    """Run one session turn against the channel the settings describe, rendering as it goes."""
    from spark_cli.cli.marks import MarkedChannel
    from spark_cli.cli.wiring import WiringError, open_provider_channel
    from spark_cli.protocol.channel import ChannelError

    session_type = session_class()
    result = TurnResult()
    try:
        async with open_provider_channel(
            settings.provider, idle_timeout=getattr(settings, "idle_timeout", None)
        ) as channel:
            marked = MarkedChannel(channel, on_request_sent=renderer.request_sent)
            session = session_type(marked, root, settings, dry_run=dry_run)
            prose = renderer.prose
            async for event in session.run_turn(instruction, list(files)):
                name = type(event).__name__
                if name == "ProseDelta":
                    prose(event.text)
                    continue
                if name == "TurnCompleted":
                    result.completed = _fields(event)
                    renderer.event(event)
                    continue
                if name == "TurnFailed":
                    result.failure = (str(getattr(event, "kind", "error")),
                                      str(getattr(event, "message", event)))
                    renderer.event(event)
                    continue
                outcome = outcome_of(event)
                if outcome is not None:
                    result.outcomes.append(outcome)
                elif name == "BlockRejected":
                    result.rejected += 1
                renderer.event(event)
            result.marks = marked.marks.as_dict()
    except WiringError as exc:
        raise UsageError(str(exc)) from None
    except ChannelError as exc:  # a session that raises instead of yielding TurnFailed
        result.failure = (exc.kind, exc.message)
    except BrokenPipeError:  # our stdout went away: not the provider's fault
        raise
    except OSError as exc:  # e.g. the bundled engine could not bind
        result.failure = ("connection", f"could not start or reach the engine: {exc}")
    return result


def end_diffs(result: TurnResult, root: Path, before: Mapping[str, str],
              *, dry_run: bool) -> list[tuple[str, str]]:
    """The minimal diff per touched file: before the turn → now (or the outcomes' own diffs)."""
    from spark_cli.edits.diffs import unified_diff
    from spark_cli.edits.textfile import TextFileError, read_text_file

    by_path: dict[str, list[Any]] = {}
    for outcome in result.outcomes:
        if outcome.ok:
            by_path.setdefault(outcome.path, []).append(outcome)
    diffs: list[tuple[str, str]] = []
    for path, outcomes in by_path.items():
        plain = all(not (o.created or o.deleted or o.moved_from) for o in outcomes)
        if not dry_run and plain and path in before and len(outcomes) > 1:
            try:
                now: str | None = read_text_file(root / path).text
            except (OSError, TextFileError):
                now = None
            diffs.append((path, unified_diff(path, before[path], now)))
        else:
            diffs.append((path, "".join(o.diff for o in outcomes)))
    return diffs


def summary_data(result: TurnResult, *, dry_run: bool, code: int) -> dict[str, Any]:
    """The run summary (``TurnCompleted`` fields + counts, exit code, latency marks)."""
    data: dict[str, Any] = dict(result.completed or {})
    data.update(applied=result.applied, refused=result.refused, dry_run=dry_run,
                exit_code=code, marks=result.marks)
    if result.failure is not None:
        data.update(status="failed", reason=result.failure[1])
    return data


def run_sync(coro: Any) -> Any:
    """``asyncio.run`` for the CLI (one event loop per command)."""
    return asyncio.run(coro)

"""One `spark edit` turn: wire the channel, run the session, render, end diff, exit code.

Used by both front ends of `spark edit` (files in a repo, and the pipe filter,
which runs this same code inside a private temp dir). The renderer is either
``TextRenderer`` or ``JsonLinesRenderer``; both take the same calls.

Exit codes (docs/cli.md): 0 applied or nothing to apply, 1 something refused,
2 usage (incl. a request too big for the window), 3 provider/transport failure,
4 the requested tests (``--test``) failed, 130 interrupted (Ctrl-C).

On the bundled engine, where the process may fork (one thread, POSIX, not
macOS), the engine is forked first thing
(:func:`spark_cli.cli.wiring.fork_bundled_engine`): it starts on the other core
while this process builds the request. The request is built and checked
(window budget, binary files) before the channel is opened, so a request that
cannot be sent is never sent (a forked engine is let go unused; the thread
engine is never started). Then it is sent ahead where the channel allows
(:func:`spark_cli.cli.wiring.send_ahead`; a forked engine's once it serves): the
model works on it while the event loop, the channel and the edit engine load,
and the channel adopts the connection it was sent on. So this module imports
asyncio only inside the turn, never at import.

Ctrl-C during the turn interrupts the session (generation stops, an
unfinished block is dropped) and the run still ends with its diff and summary;
a second Ctrl-C gives up at once.
"""

from __future__ import annotations

import signal
from collections.abc import Coroutine, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from spark_cli.edits.model.outcome import EditApplied, EditOutcome
from spark_cli.protocol.channel import RequestSent
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    ProseDelta,
    TurnCompleted,
    TurnFailed,
)

if TYPE_CHECKING:
    import asyncio

    from spark_cli.render.renderer import Renderer
    from spark_cli.session.api import SessionApi, SessionFactory
    from spark_cli.session.config.settings import Settings

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_PROVIDER, EXIT_TESTS = 0, 1, 2, 3, 4
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as a shell reports it
USAGE_FAILURES = frozenset({"context_length", "usage", "request", "too_large", "binary",
                            "encoding", "budget", "not_found_file", "path"})
"""``TurnFailed.kind`` values that are the caller's to fix (exit 2), not the provider's."""

_T = TypeVar("_T")


class UsageError(Exception):
    """Bad flags or inputs: one clear line on stderr, exit 2, nothing touched."""


class TurnResult:
    """What one turn came to, for the end diff, the summary and the exit code."""

    __slots__ = ("completed", "failure", "interrupted", "marks", "outcomes", "rejected", "texts")

    def __init__(self) -> None:
        self.outcomes: list[EditOutcome] = []
        self.rejected = 0
        self.completed: TurnCompleted | None = None
        self.failure: TurnFailed | None = None
        self.marks: dict[str, float | None] = {}
        self.interrupted = False
        """Ctrl-C ended the turn early (exit 130)."""
        self.texts: dict[str, str] = {}
        """path -> the text after the turn as the session knows it (a dry run's result)."""

    @property
    def applied(self) -> int:
        return sum(1 for o in self.outcomes if o.ok)

    @property
    def refused(self) -> int:
        return sum(1 for o in self.outcomes
                   if not isinstance(o, EditApplied) or o.partial) + self.rejected

    def exit_code(self) -> int:
        if self.interrupted:
            return EXIT_INTERRUPTED
        if self.failure is not None:
            return EXIT_USAGE if self.failure.kind in USAGE_FAILURES else EXIT_PROVIDER
        return EXIT_REFUSED if self.refused else EXIT_OK


def session_class() -> SessionFactory:
    """The session type (a seam for tests; imported lazily for start-up)."""
    from spark_cli.session.conversation import Session

    return Session


class _CtrlC:
    """SIGINT while a turn runs: the first interrupts the session (or, before it streams,
    cancels the run), a second gives up at once with KeyboardInterrupt."""

    def __init__(self, task: asyncio.Task[Any] | None) -> None:
        self.task = task
        self.session: SessionApi | None = None
        self.count = 0
        self._pending: set[asyncio.Future[None]] = set()

    def __call__(self) -> None:
        self.count += 1
        if self.count > 1:
            raise KeyboardInterrupt
        import asyncio

        session = self.session
        if session is not None and session.streaming:
            stopping = asyncio.ensure_future(session.interrupt())
            self._pending.add(stopping)
            stopping.add_done_callback(self._pending.discard)
        elif self.task is not None:
            self.task.cancel()

    def install(self) -> bool:
        import asyncio

        try:
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, self)
        except (NotImplementedError, RuntimeError, ValueError):  # not the main thread / Windows
            return False
        return True

    @staticmethod
    def remove() -> None:
        import asyncio

        asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)


def run_turn(settings: Settings, root: Path, files: Sequence[str], instruction: str,
             renderer: Renderer, *, dry_run: bool) -> TurnResult:
    """Run one session turn against the channel the settings describe, rendering as it goes.

    Builds the request, sends it ahead where it can, then runs the event loop."""
    result = TurnResult()
    try:
        engine = _fork_engine(settings)
    except OSError as exc:  # the port could not be bound, or no fork: as the thread's start
        result.failure = TurnFailed("connection", f"could not start or reach the engine: {exc}")
        renderer.event(result.failure)
        return result
    try:
        return _prepared_turn(settings, root, files, instruction, renderer, result, engine,
                              dry_run=dry_run)
    finally:
        if engine is not None:
            engine.close()  # the child exits on its own; this never waits for it


def _fork_engine(settings: Settings) -> Any:
    """The bundled engine, forked now (its start-up overlaps the rest of ours), where the
    settings use it and this process may fork; else None."""
    from spark_cli.cli.wiring import fork_bundled_engine

    return fork_bundled_engine(settings.provider)


def _prepared_turn(settings: Settings, root: Path, files: Sequence[str], instruction: str,
                   renderer: Renderer, result: TurnResult, engine: Any, *,
                   dry_run: bool) -> TurnResult:
    session = session_class()(None, root, settings, dry_run=dry_run)
    failed = session.prepare(instruction, list(files))
    if failed is None and settings.provider.kind != "mock":  # the server's own count
        from spark_cli.cli.window_setup import fit_exactly

        failed = fit_exactly(session, instruction, list(files))
    if failed is not None:  # nothing was sent (a forked engine is let go unused)
        result.failure = failed
        renderer.event(failed)
        return result
    ahead = None
    request = session.prepared
    if request is not None:
        from spark_cli.cli.wiring import send_ahead

        try:
            ahead = send_ahead(settings.provider, request, idle_timeout=settings.idle_timeout,
                               engine=engine)
        except KeyboardInterrupt:  # Ctrl-C while connecting: the run ends as a turn's would
            result.interrupted = True
            return result
    _collect_from_now()
    try:
        return run_sync(_turn(session, settings, files, instruction, renderer, result, ahead,
                              engine))
    finally:
        if ahead is not None:
            ahead.close()  # no-op once adopted (the channel owns the socket then)


def _collect_from_now() -> None:
    """Turn the cycle collector back on where the console script turned it off for a
    `spark edit` start-up, with everything loaded so far frozen: modules and classes, never
    garbage, are not scanned again by the collections of a long answer. A process that kept
    its collector on (a test runner, typer's path) is left as it is."""
    import gc

    if not gc.isenabled():
        gc.freeze()
        gc.enable()


async def _turn(session: SessionApi, settings: Settings, files: Sequence[str], instruction: str,
                renderer: Renderer, result: TurnResult, ahead: Any, engine: Any) -> TurnResult:
    import asyncio

    ctrl_c = _CtrlC(asyncio.current_task())
    ctrl_c.session = session
    installed = ctrl_c.install()
    try:
        return await _run_turn(session, settings, files, instruction, renderer, result, ahead,
                               engine, ctrl_c)
    finally:
        if installed:
            ctrl_c.remove()


async def _run_turn(session: SessionApi, settings: Settings, files: Sequence[str],
                    instruction: str, renderer: Renderer, result: TurnResult, ahead: Any,
                    engine: Any, ctrl_c: _CtrlC) -> TurnResult:
    import asyncio

    from spark_cli.cli.edit.overflow_retry import overflow_retry
    from spark_cli.cli.wiring import WiringError, open_provider_channel
    from spark_cli.protocol.channel import ChannelError

    try:
        async with open_provider_channel(
            settings.provider, idle_timeout=settings.idle_timeout, ahead=ahead, engine=engine,
            first_token_timeout=settings.first_token_timeout,
        ) as channel:
            session.attach(channel)
            await _stream(session, instruction, files, renderer, result, engine)
            if overflow_retry(session, settings, instruction, files, renderer, result):
                await _stream(session, instruction, files, renderer, result, engine)
    except WiringError as exc:
        raise UsageError(str(exc)) from None
    except ChannelError as exc:  # a channel that raised while opening or closing
        result.failure = _explained(TurnFailed(exc.kind, exc.message), engine)
    except BrokenPipeError:  # our stdout went away: not the provider's fault
        raise
    except OSError as exc:  # e.g. the bundled engine could not bind
        result.failure = TurnFailed("connection", f"could not start or reach the engine: {exc}")
    except asyncio.CancelledError:
        if not ctrl_c.count:
            raise
        task = asyncio.current_task()
        if task is not None:
            task.uncancel()  # our own Ctrl-C: the run ends normally, reporting it
    if ctrl_c.count:
        result.interrupted = True
    result.marks = session.marks.as_dict()
    result.texts = dict(session.seen)
    return result


async def _stream(session: SessionApi, instruction: str, files: Sequence[str],
                  renderer: Renderer, result: TurnResult, engine: Any = None) -> None:
    from spark_cli.cli.edit.prefill_timer import timer_for

    timer = timer_for(renderer, session)
    prose = renderer.prose

    def first_prose(text: str) -> None:  # the first token: the timer stops, then plain prose
        nonlocal prose
        if timer is not None:
            timer.stop()
        prose = renderer.prose
        prose(text)

    if timer is not None:
        prose = first_prose
    try:
        async for event in session.run_turn(instruction, list(files)):
            if type(event) is ProseDelta:  # the hot path first: one identity check per delta
                prose(event.text)
                continue
            if type(event) is RequestSent and timer is not None:
                timer.tokens = session.context_tokens
                timer.start(event.at)
            _event(event, renderer, result, engine)
    finally:
        if timer is not None:
            timer.stop()


def _event(event: Any, renderer: Renderer, result: TurnResult, engine: Any) -> None:
    """One session event but prose: noted in ``result`` and rendered."""
    match event:
        case RequestSent(at=at):
            renderer.request_sent(at)
            return
        case EditLanded(outcome=outcome) | EditRefused(outcome=outcome):
            result.outcomes.append(outcome)
        case BlockRejected():
            result.rejected += 1
        case TurnCompleted():
            result.completed = event
        case TurnFailed():
            event = result.failure = _explained(event, engine)
    renderer.event(event)


def _explained(failure: TurnFailed, engine: Any) -> TurnFailed:
    """``failure``, or why the forked engine is not serving where that is the cause (the
    child's own report rather than the socket it closed)."""
    why = engine.failure() if engine is not None else None
    if why is None:
        return failure
    return TurnFailed("connection", f"could not start or reach the engine: {why}",
                      failure.applied, failure.refused)


def end_diffs(result: TurnResult, root: Path, before: Mapping[str, str],
              *, dry_run: bool) -> list[tuple[str, str]]:
    """The minimal diff per touched file: before the turn → now (or the outcomes' own diffs)."""
    from spark_cli.edits.apply.diffs import unified_diff
    from spark_cli.edits.disk.textfile import read_text_file
    from spark_cli.edits.model.outcome import FileRefused

    by_path: dict[str, list[EditApplied]] = {}
    for outcome in result.outcomes:
        if isinstance(outcome, EditApplied):
            by_path.setdefault(outcome.path, []).append(outcome)
    diffs: list[tuple[str, str]] = []
    for path, outcomes in by_path.items():
        plain = all(not (o.created or o.deleted or o.moved_from) for o in outcomes)
        now: str | None = None
        if plain and path in before and len(outcomes) > 1:
            if dry_run:  # the session's in-memory result: blocks applied one after another
                now = result.texts.get(path)
                if now == before[path]:  # not followed (the file changed meanwhile)
                    now = None
            else:
                try:
                    now = read_text_file(root / path).text
                except (OSError, FileRefused):
                    now = None
        if now is not None:
            diffs.append((path, unified_diff(path, before[path], now)))
        else:
            diffs.append((path, "".join(o.diff for o in outcomes)))
    return diffs


def summary_data(result: TurnResult, *, dry_run: bool, code: int) -> dict[str, Any]:
    """The run summary (``TurnCompleted`` fields + counts, exit code, latency marks)."""
    from spark_cli.render.jsonl import event_to_json

    data: dict[str, Any] = {}
    if result.completed is not None:
        data.update(event_to_json(result.completed))
        del data["type"]
    if result.interrupted and result.completed is None:
        data.update(status="cancelled", reason="interrupted")
    data.update(applied=result.applied, refused=result.refused, dry_run=dry_run,
                exit_code=code, marks=result.marks)
    if result.failure is not None and not result.interrupted:
        data.update(status="failed", reason=result.failure.message)
    return data


def run_sync(coro: Coroutine[Any, Any, _T]) -> _T:
    """``asyncio.run`` for the CLI (one event loop per command)."""
    import asyncio

    return asyncio.run(coro)

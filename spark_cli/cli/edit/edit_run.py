"""One `spark edit` turn: wire the channel, run the session, render, end diff, exit code.

The request is built and checked before the channel opens, then sent ahead where the channel
allows (``wiring.send_ahead``) while asyncio and the edit engine load. Exit codes: docs/cli.md.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spark_cli.cli import wiring
from spark_cli.cli.edit.turn_result import TurnResult
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.model.outcome import EditApplied, FileRefused
from spark_cli.protocol.channel import ChannelError, Message, RequestSent, ToolCall
from spark_cli.session.context.targets import RequestError
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    ProseDelta,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.failures import explain
from spark_cli.session.window.learning import prepare_counted

if TYPE_CHECKING:
    from spark_cli.cli.edit.signals import TurnSignals
    from spark_cli.render.renderer import Renderer
    from spark_cli.session.api import SessionApi
    from spark_cli.session.config.settings import Settings
    from spark_cli.session.spend.limits import Limits
    from spark_cli.transport.fast import SentAhead


class UsageError(Exception):
    """Bad flags or inputs: one clear line on stderr, exit 2, nothing touched."""


def run_turn(settings: Settings, root: Path, files: Sequence[str], instruction: str,
             renderer: Renderer, *, dry_run: bool, limits: Limits | None = None) -> TurnResult:
    """Run one session turn on the channel the settings describe, rendering as it goes."""
    result = TurnResult()
    _prepared_turn(settings, root, files, instruction, renderer, result, dry_run=dry_run,
                   limits=limits)
    if not (result.outcomes or result.rejected or result.interrupted or result.failure):
        from spark_cli.cli.edit.no_edit import settle  # deferred: launch -> request

        settle(result, settings, root, files, renderer, dry_run=dry_run)
    return result


def _prepared_turn(settings: Settings, root: Path, files: Sequence[str], instruction: str,
                   renderer: Renderer, result: TurnResult, *, dry_run: bool,
                   limits: Limits | None) -> TurnResult:
    session = Session(None, root, settings, dry_run=dry_run, limits=limits)
    if settings.commands == "ask" and settings.tools:
        from spark_cli.cli.edit.asking import terminal_approver  # deferred: launch -> request

        session.set_approver(terminal_approver())
    if instruction.lstrip().startswith("/") or "$" in instruction or session.hooks.has(
            "UserPromptSubmit") or session.hooks.has("SessionStart"):  # before it is built
        import asyncio  # deferred: launch -> request (prompt files, skills and hooks only)

        try:
            hooked = asyncio.run(_submitted(session, instruction))
        except ValueError as exc:  # a broken prompt file: nothing is sent
            raise UsageError(str(exc)) from None
        if isinstance(hooked, TurnFailed):
            result.failure = hooked
            for warning in session.hooks.warned:  # the other prompt hooks'
                renderer.event(warning)
            renderer.event(hooked)
            return result
        instruction = hooked
    if settings.provider.kind == "mock":
        failed = session.prepare(instruction, list(files))
    else:  # counted by the server's tokenizer where it has one
        # deferred: launch -> request (httpx; the mock and a configured window ask nothing)
        from spark_cli.transport.window.probe import count

        failed = prepare_counted(session, instruction, files, count)
    pending = failed is None and session.servers_pending()  # first: the MCP servers' tools
    if not pending:
        renderer.begin(run_info(session, settings))
    if failed is not None:  # nothing was sent
        result.failure = failed
        renderer.event(failed)
        return result
    ahead = None
    request = session.prepared
    if request is not None and not pending:
        try:
            ahead = wiring.send_ahead(settings.provider, request,
                                      idle_timeout=settings.idle_timeout)
        except KeyboardInterrupt:  # Ctrl-C while connecting: the run ends as a turn's would
            result.interrupted = True
            return result
    import asyncio  # deferred: launch -> request (the request left; the loop loads)

    try:
        return asyncio.run(_turn(session, settings, files, instruction, renderer, result, ahead,
                                 None if limits is None else limits.deadline, pending))
    finally:
        if ahead is not None:
            ahead.close()  # no-op once adopted (the channel owns the socket then)


async def _submitted(session: Session, instruction: str) -> str | TurnFailed:
    """A prompt file's command expanded, then the prompt hooks run (or why one blocked it)."""
    if instruction.lstrip().startswith("/"):
        instruction = await session.expand_command(instruction.strip()) or instruction
    try:
        return await session.submit(instruction)
    except RequestError as exc:
        return exc.failure()


async def _turn(session: SessionApi, settings: Settings, files: Sequence[str], instruction: str,
                renderer: Renderer, result: TurnResult, ahead: SentAhead | None,
                deadline: float | None, pending: bool) -> TurnResult:
    import asyncio  # deferred: launch -> request (the request left; the loop loads)

    from spark_cli.cli.edit.signals import TurnSignals  # deferred: launch -> request

    ctrl_c = TurnSignals(asyncio.current_task())
    ctrl_c.session = session
    installed = ctrl_c.install()
    alarm = None
    if deadline is not None:  # the loop's clock is time.monotonic()

        def time_up() -> None:
            result.timed_out = True
            ctrl_c()  # stops the turn as a first Ctrl-C does: edits that landed stay

        alarm = asyncio.get_running_loop().call_at(deadline, time_up)
    try:
        return await _run_turn(session, settings, files, instruction, renderer, result, ahead,
                               ctrl_c, pending)
    finally:
        await session.close_servers()  # no MCP server outlives the run (Ctrl-C, SIGTERM too)
        if alarm is not None:
            alarm.cancel()
        if installed:
            ctrl_c.remove()


async def _run_turn(session: SessionApi, settings: Settings, files: Sequence[str],
                    instruction: str, renderer: Renderer, result: TurnResult,
                    ahead: SentAhead | None, ctrl_c: TurnSignals, pending: bool) -> TurnResult:
    import asyncio  # deferred: launch -> request

    start = len(session.history)
    try:
        if pending:  # MCP servers no run has listed: their tools go in the first request
            await session.wait_for_servers()
            result.failure = session.prepare(instruction, list(files))
            renderer.begin(run_info(session, settings))
            if result.failure is not None:
                renderer.event(result.failure)
                return result
        async with wiring.open_provider_channel(
            settings.provider, idle_timeout=settings.idle_timeout, ahead=ahead,
            first_token_timeout=settings.first_token_timeout,
        ) as channel:
            session.attach(channel)
            await _stream(session, instruction, files, renderer, result)
    except wiring.WiringError as exc:
        raise UsageError(str(exc)) from None
    except ChannelError as exc:  # a channel that raised while opening or closing
        result.failure = TurnFailed(exc.kind, explain(exc.kind, exc.message, settings.provider))
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
        result.signal = ctrl_c.signum
    result.marks = session.marks.as_dict()
    result.texts = dict(session.seen)
    result.answer, result.tools = answer_of(session.history[start:])
    return result


async def _stream(session: SessionApi, instruction: str, files: Sequence[str],
                  renderer: Renderer, result: TurnResult) -> None:
    from spark_cli.cli.edit.prefill_timer import timer_for  # deferred: launch -> request

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
            if type(event) is RequestSent:
                session.start_servers()  # MCP servers start once the request has left
                if timer is not None and session.marks.first_output_at is None:
                    timer.tokens = session.context_tokens  # not a tool follow-up's
                    timer.start(event.at)
            _event(event, renderer, result)
    finally:
        if timer is not None:
            timer.stop()


def _event(event: Any, renderer: Renderer, result: TurnResult) -> None:
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
            result.failure = event
    renderer.event(event)


def run_info(session: SessionApi, settings: Settings) -> dict[str, Any]:
    """What a stream's first line says of the run (``Renderer.begin``)."""
    request = session.prepared
    return {"cwd": str(session.root), "model": settings.provider.model,
            "provider": settings.provider.name, "permission_mode": settings.commands,
            "tools": [t.name for t in request.tools] if request is not None else []}


def renderer_for(output_format: str, out: Any) -> Any:
    """The run's renderer: JSON lines, stream-json, or text (coloured on a terminal)."""
    if output_format == "stream-json":
        from spark_cli.render.stream_json import StreamJsonRenderer  # deferred: launch -> request

        return StreamJsonRenderer(out)
    if output_format == "json":
        from spark_cli.render.jsonl import JsonLinesRenderer  # deferred: launch -> request

        return JsonLinesRenderer(out)
    from spark_cli.render.text import TextRenderer  # deferred: launch -> request

    color = out.isatty() and "NO_COLOR" not in os.environ
    return TextRenderer(out, out, color=color, calls_out=sys.stderr)


def answer_of(items: Iterable[object]) -> tuple[str, tuple[str, ...]]:
    """The assistant's text and the tools it called, from the items one turn added."""
    text: list[str] = []
    tools: list[str] = []
    for item in items:
        if isinstance(item, Message) and item.role == "assistant":
            text.append(item.content)
        elif isinstance(item, ToolCall):
            tools.append(item.name)
    return "".join(text), tuple(tools)


def end_diffs(result: TurnResult, root: Path, before: Mapping[str, str],
              *, dry_run: bool) -> list[tuple[str, str]]:
    """The minimal diff per touched file: before the turn → now (or the outcomes' own diffs)."""
    from spark_cli.edits.apply.diffs import unified_diff  # deferred: launch -> request

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
        diffs.append((path, unified_diff(path, before[path], now) if now is not None
                      else "".join(o.diff for o in outcomes)))
    return diffs


def closing_lines(result: TurnResult, settings: Settings) -> list[str]:
    """The run's last words on stderr (no edit, an answer cut at the output cap); mostly none."""
    completed = result.completed
    if result.no_edit is None and (completed is None or completed.reason != "max_output_tokens"):
        return []
    from spark_cli.cli.edit.no_edit import closing_lines as lines  # deferred: launch -> request

    return lines(result, settings)


def summary_data(result: TurnResult, *, dry_run: bool, code: int) -> dict[str, Any]:
    """The run summary (``TurnCompleted`` fields + counts, exit code, latency marks)."""
    from spark_cli.render.jsonl import event_to_json  # deferred: launch -> request

    data: dict[str, Any] = {}
    if result.completed is not None:
        data.update(event_to_json(result.completed))
        del data["type"]
    elif result.failure is not None:
        data["usage"] = event_to_json(result.failure)["usage"]
    if result.interrupted and result.completed is None:
        data.update(status="cancelled", reason="interrupted")
    if result.timed_out:
        data.update(status="cancelled", reason="timeout", timed_out=True)
    data.update(applied=result.applied, refused=result.refused, dry_run=dry_run,
                exit_code=code, marks=result.marks)
    if result.failure is not None and not result.interrupted:
        data.update(status="failed", reason=result.failure.message)
    if result.no_edit is not None:
        data.update(no_edit={"kind": result.no_edit.kind, "message": result.no_edit.message})
    return data

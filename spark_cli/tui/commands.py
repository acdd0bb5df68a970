"""Slash commands: parse a ``/name args`` line and run it against the app's session.

Every command answers with a line in the transcript; an unknown command or a
bad argument says so and changes nothing. No command runs tests but
``/test`` and ``/fix`` (which runs nothing: it sends the last failure).
"""

from __future__ import annotations

import shlex
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spark_cli.tui.app import SparkApp

Handler = Callable[["SparkApp", list[str]], Awaitable[None]]
HELP_LINES = (
    "/add PATH…      add files to the context        /drop PATH…  remove them",
    "/files          list the context                 /diff        what spark changed",
    "/undo           undo the last batch of edits (Ctrl+Z)",
    "/test [ARGS]    run the tests (Esc stops them)   /fix         send the last failure",
    "/queue          list · /queue edit|drop|up|down N · /queue clear",
    "/model NAME     switch model                     /provider NAME  switch provider",
    "/deep TASK      hand a task to the deep model (Ctrl+G); /deep lists, /deep show N",
    "                reviews, /deep apply N [all|PATH|PATH:H], /deep drop|cancel N",
    "/clear          clear the transcript and start a new conversation",
    "/resume         reopen the last conversation of this repo",
    "/help           this list                        Ctrl+Q quits",
)


def parse(line: str) -> tuple[str, list[str]] | str:
    """``(name, args)`` of a command line, or the problem with it."""
    try:
        words = shlex.split(line[1:])
    except ValueError as exc:
        return f"cannot read that command: {exc}"
    if not words:
        return "an empty command: /help lists them"
    return words[0].lower(), words[1:]


async def run_command(app: SparkApp, line: str) -> None:
    parsed = parse(line)
    if isinstance(parsed, str):
        app.note(parsed, "yellow")
        return
    name, args = parsed
    handler = COMMANDS.get(name)
    if handler is None:
        app.note(f"unknown command /{name}: /help lists them", "yellow")
        return
    await handler(app, args)


def cancel_running(app: SparkApp) -> bool:
    """Esc when no turn streams: stop a running /test. True when something stopped."""
    task = app.test_task
    if task is not None and not task.done():
        task.cancel()
        return True
    return False


async def _help(app: SparkApp, args: list[str]) -> None:
    for text in HELP_LINES:
        app.note(text)


async def _clear(app: SparkApp, args: list[str]) -> None:
    if app.interaction.busy:
        app.note("a turn is running: Esc first", "yellow")
        return
    from spark_cli.tui.transcript import Transcript

    app.query_one(Transcript).clear()
    app.session.reset()
    app.note("new conversation (files on disk are unchanged; /undo still works)")


async def _queue(app: SparkApp, args: list[str]) -> None:
    queue = list(app.interaction.queue)
    if not args:
        if not queue:
            app.note("the queue is empty (Tab queues a message while a turn streams)")
        for i, item in enumerate(queue, 1):
            app.note(f"{i}. {item}")
        return
    verb, rest = args[0], args[1:]
    if verb == "clear":
        app.interaction.edit_queue([])
        return
    if verb not in ("edit", "drop", "up", "down") or len(rest) != 1 or not rest[0].isdigit():
        app.note("usage: /queue edit|drop|up|down N, /queue clear", "yellow")
        return
    index = int(rest[0]) - 1
    if not 0 <= index < len(queue):
        app.note(f"no queued message {index + 1} (the queue has {len(queue)})", "yellow")
        return
    item = queue.pop(index)
    if verb == "edit":
        from spark_cli.tui.prompt import Prompt

        app.query_one(Prompt).load_text(item)
    elif verb in ("up", "down"):
        queue.insert(max(0, index - 1) if verb == "up" else min(len(queue), index + 1), item)
    app.interaction.edit_queue(queue)


async def _undo(app: SparkApp, args: list[str]) -> None:
    from spark_cli.session.workspace.changes import undo_last_batch

    if app.interaction.busy:
        app.note("a turn is running: Esc first, then /undo", "yellow")
        return
    force = args == ["--force"]
    report = undo_last_batch(app.session.root, force=force, since_batch=app.undo_mark)
    style = {"undone": "bold green", "nothing": "dim"}.get(report.status, "bold red")
    app.note(f"↶ {report.message}", style)
    for refused in report.refused:
        app.note(f"  {refused.path}: {refused.reason}", "red")
    if report.status == "refused":
        app.note("/undo --force restores them anyway (your later changes are lost)", "dim")
    if report.restored:
        app.session.seen.clear()  # the model's view is stale: files are sent again


async def _diff(app: SparkApp, args: list[str]) -> None:
    from rich.syntax import Syntax

    from spark_cli.session.workspace.changes import session_diff

    diffs = session_diff(app.session.root, app.undo_mark)
    if not diffs:
        app.note("spark has changed nothing in this session (or it was all undone)")
        return
    for path, diff in diffs:
        app.note(path, "bold")
        app.write(Syntax(diff.rstrip("\n"), "diff", theme="ansi_dark",
                         background_color="default", word_wrap=True))


async def _model(app: SparkApp, args: list[str]) -> None:
    if len(args) != 1:
        app.note(f"usage: /model NAME (now {app.session.settings.provider.model})", "yellow")
        return
    await app.reconfigure({"model": args[0]})


async def _provider(app: SparkApp, args: list[str]) -> None:
    if len(args) != 1:
        app.note(f"usage: /provider NAME (now {app.session.settings.provider.name}): "
                  "mock, openai, cerebras, openai-compatible or one from your config", "yellow")
        return
    await app.reconfigure({"provider": args[0]})


async def _resume(app: SparkApp, args: list[str]) -> None:
    if app.interaction.busy:
        app.note("a turn is running: Esc first", "yellow")
        return
    app.resume_conversation()


async def _test(app: SparkApp, args: list[str]) -> None:
    from spark_cli.tui.test_command import run_test_command

    await run_test_command(app, args)


async def _fix(app: SparkApp, args: list[str]) -> None:
    from spark_cli.tui.test_command import fix

    await fix(app, args)


async def _add(app: SparkApp, args: list[str]) -> None:
    if not args:
        app.note("usage: /add PATH… (the files every turn sends in full)", "yellow")
        return
    for path in args:
        problem = app.context_files.add(path)
        if problem is None:
            app.note(f"added {path} to the context", "green")
        else:
            app.note(f"✗ {problem}", "red")


async def _drop(app: SparkApp, args: list[str]) -> None:
    if not args:
        app.note("usage: /drop PATH…", "yellow")
        return
    for path in args:
        problem = app.context_files.drop(path)
        app.note(f"dropped {path}" if problem is None else f"✗ {problem}",
                  "dim" if problem is None else "red")


async def _files(app: SparkApp, args: list[str]) -> None:
    files = app.context_files.files()
    app.note("files every turn sends: " + (", ".join(files) if files else
              "none (/add PATH; files named in a message are sent too)"))
    report = app.session.context
    if report is not None:
        parts = ", ".join(f"{name} {tokens:,}" for name, tokens in report.parts.items() if tokens)
        app.note(f"last request: {report.used:,} of {report.budget:,} tokens ({parts})")


async def _deep(app: SparkApp, args: list[str]) -> None:
    from spark_cli.tui.deep_commands import deep_command

    await deep_command(app, args)


COMMANDS: dict[str, Handler] = {
    "deep": _deep,
    "add": _add,
    "drop": _drop,
    "files": _files,
    "help": _help,
    "clear": _clear,
    "queue": _queue,
    "undo": _undo,
    "diff": _diff,
    "model": _model,
    "provider": _provider,
    "resume": _resume,
    "test": _test,
    "fix": _fix,
}

"""`spark edit PATH... -m "..."`: one streamed turn that edits files in place (or a pipe filter).

Without PATH the whole repo (or, with code on stdin, :mod:`.pipe_mode`); exit codes and
output formats: docs/cli.md. Imports nothing heavy: a plain line runs :func:`run_edit`."""

from __future__ import annotations

import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from spark_cli.cli.edit.edit_args import EditArgs
from spark_cli.cli.edit.edit_settings import edit_flags, load, say

if TYPE_CHECKING:
    import typer

    from spark_cli.session.spend.limits import Limits

FORMATS = ("search_replace", "apply_patch")
OUTPUT_FORMATS = ("text", "json", "stream-json")
INTERRUPTED = "spark edit: interrupted (edits that landed stay; spark undo)"
TIMED_OUT = "spark edit: --timeout ran out: the turn stopped (edits that landed stay; spark undo)"


def _target(raw: str, root: Path, cwd: Path) -> tuple[str, str]:
    """(root-relative path, text) of one PATH argument, or a UsageError."""
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import UsageError
    from spark_cli.edits.disk.textfile import read_text_file
    from spark_cli.edits.model.outcome import FileRefused

    candidate = Path(raw)
    if not candidate.is_absolute():
        candidate = cwd / raw if (cwd / raw).exists() or not (root / raw).exists() else root / raw
    if not candidate.exists():
        raise UsageError(f"{raw}: no such file")
    if candidate.is_dir():
        raise UsageError(f"{raw} is a directory; name the files to edit")
    resolved = candidate.resolve()
    try:
        rel = resolved.relative_to(root)
    except ValueError:
        raise UsageError(f"{raw} is outside the repo root {root} (use --root)") from None
    try:
        text = read_text_file(resolved, name=raw).text
    except FileRefused as exc:
        raise UsageError(exc.message) from None
    except OSError as exc:
        raise UsageError(f"{raw}: cannot read ({exc.strerror or exc})") from None
    return rel.as_posix(), text


def edit_files(paths: list[str], instruction: str, root: Path, flags: dict[str, object], *,
               dry_run: bool, output_format: str, run_tests: bool,
               limits: Limits | None = None, best_of: int | None = None,
               judge: str | None = None) -> int:
    """The files front end; returns the exit code."""
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import (
        UsageError,
        closing_lines,
        end_diffs,
        renderer_for,
        run_turn,
        summary_data,
    )
    from spark_cli.cli.edit.turn_result import EXIT_OK  # deferred: spark --help

    cwd = Path.cwd()
    before = dict(_target(raw, root, cwd) for raw in paths)  # root-relative path -> text
    settings = load(root, flags, one_shot=True, warn=True)
    renderer = renderer_for(output_format, sys.stdout)
    n = best_of or settings.best_of
    if judge is not None and n == 1:
        raise UsageError("--judge judges a race: add --best-of N (2 to 8)")
    if n > 1:
        from spark_cli.cli.edit.best_of import best_of as race  # deferred: spark --help

        deep = load(root, {"deep": True}) if judge == "deep" else None  # [deep]'s own
        return race(root, settings, list(before), instruction, n, renderer=renderer,
                    run_tests=run_tests, dry_run=dry_run, limits=limits, deep=deep)
    result = run_turn(settings, root, list(before), instruction, renderer,
                      dry_run=dry_run, limits=limits)
    code: int = result.exit_code()
    for path, diff in end_diffs(result, root, before, dry_run=dry_run):
        renderer.diff(path, diff)
    if result.timed_out:
        say(TIMED_OUT)
    elif result.interrupted:
        say(INTERRUPTED)
    elif result.failure is not None:
        say(f"spark edit: {result.failure.message}")
    for line in closing_lines(result, settings):
        say(line)
    renderer.summary(summary_data(result, dry_run=dry_run, code=code))
    if run_tests and result.failure is None and not result.interrupted:
        from spark_cli.cli.edit.test_step import run_project_tests  # deferred: spark --help

        tests_code = run_project_tests(root, settings, renderer)
        if code == EXIT_OK:
            code = tests_code
    return code


def run_edit(args: EditArgs) -> NoReturn:
    """Run `spark edit` as ``args`` say and end the process with its exit code."""
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import UsageError
    from spark_cli.cli.edit.turn_result import EXIT_USAGE

    began = time.monotonic()
    try:
        code = _dispatch(args, began, edit_flags(
            provider=args.provider, model=args.model, base_url=args.base_url,
            max_output_tokens=args.max_output_tokens, edit_format=args.edit_format,
            allow_syntax_errors=args.allow_syntax_errors, deep=args.deep,
            no_tools=args.no_tools, commands=args.commands))
    except UsageError as exc:
        say(f"spark edit: {exc}")
        code = EXIT_USAGE
    except KeyboardInterrupt:  # a second Ctrl-C, or one outside the turn
        say("\n" + INTERRUPTED)
        code = 130
    except BrokenPipeError:  # stdout closed early (`spark edit ... | head`): stop quietly
        _silence_stdout()
        code = EXIT_BROKEN_PIPE
    exit_now(code)


def register(app: typer.Typer) -> None:
    """Add `edit` to the typer ``app`` (both it and the fast path end in :func:`run_edit`)."""
    import typer  # deferred: launch -> request (a plain `spark edit` line skips typer)

    from spark_cli.cli import options  # deferred: launch -> request (it imports typer)

    @app.command("edit")
    def edit_command(
        paths: list[str] | None = typer.Argument(
            None, help="Files to send. None: the whole repo (the model finds the files); "
                       "none + code on stdin: the pipe filter (stdout = result)."),
        message: str = typer.Option(..., "-m", "--message", help="The instruction."),
        dry_run: bool = typer.Option(False, "--dry-run", help="Show the edits, write nothing."),
        as_json: bool = typer.Option(False, "--json", help="--output-format json."),
        output_format: str | None = typer.Option(
            None, "--output-format", help="text (default), json (spark's events, one a line) "
                                          "or stream-json (Claude Code's stream schema)."),
        max_turns: int | None = typer.Option(
            None, "--max-turns", help="At most N model requests in the tool loop."),
        timeout: float | None = typer.Option(
            None, "--timeout", help="Wall-clock budget in seconds: then the turn stops "
                                    "(edits kept, exit 124)."),
        run_tests: bool = typer.Option(False, "--test", help="Run the project's tests after."),
        provider: str | None = options.PROVIDER,
        model: str | None = options.MODEL,
        base_url: str | None = options.BASE_URL,
        max_output_tokens: int | None = typer.Option(
            None, "--max-output-tokens", min=1, help="Cap on the answer's tokens."),
        edit_format: str | None = options.FORMAT,
        allow_syntax_errors: bool = typer.Option(
            False, "--allow-syntax-errors", help="Apply even if a file would stop parsing."),
        deep: bool = typer.Option(False, "--deep",
                                  help="Run on the deep model ([deep] in the config)."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd)."),
        lang: str | None = typer.Option(None, "--lang",
                                        help="Pipe mode: the language of stdin."),
        no_tools: bool = options.NO_TOOLS,
        commands: str | None = typer.Option(
            None, "--commands", help="May the model run commands: ask (on the terminal), "
                                     "sandbox (no asking, sandboxed), off (the default) or "
                                     "full-access (no asking, no sandbox: containers, CI)."),
        best_of: int | None = typer.Option(
            None, "--best-of", help="Race N answers (1-8), merge the one that applies, "
                                    "parses and passes the check."),
        judge: str | None = typer.Option(
            None, "--judge", help="evidence (the default) or deep: the deep model breaks a "
                                  "tie the evidence leaves."),
    ) -> None:
        """Ask for an edit: stream the answer, apply edits as they land, show the diff."""
        # the parameters are EditArgs' fields, name for name
        run_edit(EditArgs(**{**locals(), "paths": list(paths or [])}))


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, as a shell reports a process killed by it


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the final flush cannot raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def exit_now(code: int) -> NoReturn:
    """End the process now: ``os._exit``, but ``SystemExit`` under tests, profilers or tracers."""
    real = sys.stdout is sys.__stdout__ and sys.stderr is sys.__stderr__
    if real and sys.getprofile() is None and sys.gettrace() is None:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except (OSError, ValueError):  # e.g. a closed pipe: the code still stands
            pass
        os._exit(code)
    raise SystemExit(code)


def output_format_of(args: EditArgs) -> str:
    """``--output-format`` (``--json`` its alias for json), checked."""
    from spark_cli.cli.edit.edit_run import UsageError  # deferred: spark --help

    chosen = args.output_format or ("json" if args.as_json else "text")
    if chosen not in OUTPUT_FORMATS:
        raise UsageError(f"--output-format must be one of {', '.join(OUTPUT_FORMATS)}, "
                         f"not {chosen!r}")
    if args.as_json and chosen != "json":
        raise UsageError(f"--json is --output-format json: it contradicts --output-format "
                         f"{chosen}")
    return chosen


def limits_of(args: EditArgs, began: float) -> Limits | None:
    """``--max-turns`` and ``--timeout`` (from ``began``, ``time.monotonic()``), checked."""
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import UsageError
    from spark_cli.session.spend.limits import Limits

    turns, timeout = args.max_turns, args.timeout
    if turns is not None and turns < 1:
        raise UsageError(f"--max-turns must be at least 1 (model requests), not {turns}")
    if timeout is not None and not (math.isfinite(timeout) and timeout > 0):
        raise UsageError(f"--timeout must be a number of seconds above 0, not {timeout:g}")
    if turns is None and timeout is None:
        return None
    return Limits(turns, None if timeout is None else began + timeout)


def stdin_code() -> bytes | None:
    """What stdin holds when it is not a terminal (None when empty or closed)."""
    try:
        if sys.stdin is None or sys.stdin.isatty():
            return None
        data: bytes = sys.stdin.buffer.read()
    except (ValueError, OSError, AttributeError):  # closed or detached stdin
        return None
    return data or None


def _dispatch(args: EditArgs, began: float, flags: dict[str, object]) -> int:
    from spark_cli.cli.edit.edit_run import UsageError  # deferred: spark --help

    paths, message, lang = args.paths, args.message, args.lang
    if not message.strip():
        raise UsageError("the instruction (-m) is empty")
    if args.best_of is not None and not 1 <= args.best_of <= 8:
        raise UsageError(f"--best-of must be 1 to 8, not {args.best_of}")
    if args.judge not in (None, "evidence", "deep"):
        raise UsageError(f"--judge must be evidence or deep, not {args.judge!r}")
    output_format = output_format_of(args)
    limits = limits_of(args, began)
    fmt = flags.get("edit_format")
    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    base = (args.root or Path.cwd()).resolve()
    if not base.is_dir():
        raise UsageError(f"--root {base} is not a directory")
    code = None if paths else stdin_code()
    if code is None:
        if lang is not None:
            raise UsageError("--lang is for pipe mode (code on stdin); a file's name gives "
                             "its language")
        return edit_files(paths, message, base, flags, dry_run=args.dry_run,
                          output_format=output_format, run_tests=args.run_tests,
                          limits=limits, best_of=args.best_of, judge=args.judge)
    if (args.best_of or 1) > 1 or args.judge is not None:
        raise UsageError("--best-of needs PATHs: the pipe filter gives one answer on one stdout")
    if args.run_tests:
        raise UsageError("--test needs PATHs in a project; pipe mode never runs tests")
    from spark_cli.cli.edit.pipe_mode import edit_stdin  # deferred: spark --help

    return edit_stdin(code, message, base, flags, lang=lang, dry_run=args.dry_run,
                      output_format=output_format, limits=limits)

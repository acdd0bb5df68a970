"""`spark apply [PATCH|-]`: apply edit text (SEARCH/REPLACE or apply_patch) to the working tree
through the session's own parser and applier, as one undo batch. Exit 0 all applied, 1
something refused or malformed, 2 usage or no well-formed block (nothing applied)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn, TextIO

import typer

if TYPE_CHECKING:
    from spark_cli.edits.apply.applier import Applier
    from spark_cli.edits.disk.journal import BatchInfo
    from spark_cli.edits.model.blocks import BlockRejected, FileEdit
    from spark_cli.edits.model.outcome import EditOutcome

EXIT_OK, EXIT_REFUSED, EXIT_USAGE = 0, 1, 2


def _usage(message: str) -> NoReturn:
    typer.echo(f"spark apply: {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def _read_input(patch: str) -> str:
    if patch == "-":
        stream = typer.get_text_stream("stdin")
        if stream.isatty():
            _usage("no PATCH given and stdin is a terminal: pass a file or pipe the edit text "
                   "in (spark apply - < edit.txt)")
        return stream.read()
    try:
        return Path(patch).read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        _usage(f"cannot read {patch}: {exc.strerror or exc}")


def parse_edit_text(text: str) -> list[FileEdit | BlockRejected]:
    """The file edits and malformed blocks of a whole edit text, in order."""
    from spark_cli.edits.formats.stream_parser import EditStreamParser  # deferred: spark --help
    from spark_cli.edits.model.blocks import BlockRejected, FileEdit  # deferred: spark --help

    parser = EditStreamParser()
    events = [*parser.feed(text), *parser.close()]
    return [e for e in events if isinstance(e, FileEdit | BlockRejected)]


def _print_diff(diff: str, out: TextIO, color: bool) -> None:
    from spark_cli.render.text import print_diff  # deferred: spark --help

    console = None
    if color:
        from rich.console import Console  # deferred: spark --help

        console = Console(file=out, force_terminal=True, highlight=False, soft_wrap=True)
    if diff:
        print_diff(diff, out, console)


def _report(outcome: EditOutcome, out: TextIO, color: bool) -> None:
    from spark_cli.edits.model.outcome import EditApplied  # deferred: spark --help

    if isinstance(outcome, EditApplied):
        steps = ", ".join(outcome.step_per_hunk)
        suffix = f" [{steps}]" if steps else ""
        out.write(f"{'partly ' if outcome.partial else ''}{outcome.message}{suffix}\n")
        _print_diff(outcome.diff, out, color)
    else:
        out.write(f"refused: {outcome.message}\n")


def _parse_error(error: BlockRejected | str, as_json: bool, out: TextIO) -> None:
    """A malformed block (or, as words, a text without any block) reported."""
    message, line, path = ((error, None, None) if isinstance(error, str)
                           else (error.message, error.line, error.path))
    if as_json:
        out.write(json.dumps({"type": "parse_error", "message": message,
                              "line": line, "path": path}) + "\n")
    else:
        typer.echo(f"spark apply: parse error: {message}", err=True)


def run_apply(text: str, root: Path, *, check: bool = False, as_json: bool = False,
              allow_syntax_errors: bool = False, out: TextIO | None = None,
              color: bool = False, force_read_only: bool = False) -> int:
    """Parse and apply ``text`` under ``root``, each block on its own; returns the exit code."""
    from spark_cli.edits.apply.applier import Applier  # deferred: spark --help
    from spark_cli.edits.model.blocks import BlockRejected  # deferred: spark --help
    from spark_cli.edits.model.outcome import outcome_to_json  # deferred: spark --help
    from spark_cli.session.config.state_dir import undo_dir  # deferred: spark --help

    out = out or sys.stdout
    events = parse_edit_text(text)
    errors = [e for e in events if isinstance(e, BlockRejected)]
    if len(errors) == len(events):
        return _nothing_to_apply(errors, as_json, check, out)
    applier = Applier(root, allow_syntax_errors=allow_syntax_errors, dry_run=check,
                      write_read_only=force_read_only, undo_dir=undo_dir(root))
    applier.begin_batch("spark apply")
    try:
        for event in events:
            if isinstance(event, BlockRejected):
                _parse_error(event, as_json, out)
                continue
            outcome = applier.apply(event)
            if as_json:
                out.write(json.dumps(outcome_to_json(outcome)) + "\n")
            else:
                _report(outcome, out, color)
    finally:
        batch = applier.end_batch()
    _summary(applier, batch, len(errors), as_json, check, out)
    return EXIT_OK if applier.all_applied and not errors else EXIT_REFUSED


def _nothing_to_apply(errors: list[BlockRejected], as_json: bool, check: bool,
                      out: TextIO) -> int:
    """Report a text without one well-formed block; the exit code (usage)."""
    for error in errors:
        _parse_error(error, as_json, out)
    if not errors:
        _parse_error("no edit blocks found (expected SEARCH/REPLACE blocks or a "
                     "'*** Begin Patch' envelope)", as_json, out)
    if as_json:
        out.write(json.dumps({"type": "summary", "applied": 0, "refused": 0,
                              "parse_errors": max(len(errors), 1), "dry_run": check}) + "\n")
    else:
        typer.echo("spark apply: nothing was applied", err=True)
    return EXIT_USAGE


def _summary(applier: Applier, batch: BatchInfo | None, errors: int, as_json: bool, check: bool,
             out: TextIO) -> None:
    """The last line: how many sections applied, refused, in part; malformed blocks."""
    from spark_cli.edits.model.outcome import EditApplied  # deferred: spark --help

    applied = sum(isinstance(o, EditApplied) for o in applier.outcomes)
    refused = applier.refused_count
    partial = sum(isinstance(o, EditApplied) and o.partial for o in applier.outcomes)
    if as_json:
        out.write(json.dumps({"type": "summary", "applied": applied, "refused": refused,
                              "partial": partial, "parse_errors": errors,
                              "dry_run": check, "batch": batch.id if batch else None}) + "\n")
    else:
        verb = "would apply" if check else "applied"
        line = f"{verb} {applied} of {applied + refused} file section(s)"
        if refused or partial:
            line += f"; {refused} refused" + (f", {partial} only in part" if partial else "")
        if errors:
            line += f"; {errors} malformed block(s) skipped"
        if batch is not None:
            line += " (undo with: spark undo)"
        out.write(line + "\n")


def register(app: typer.Typer) -> None:
    @app.command("apply")
    def apply_command(
        patch: str = typer.Argument("-", help="File with the edit text, or - for stdin."),
        check: bool = typer.Option(False, "--check", help="Dry run: report, write nothing."),
        as_json: bool = typer.Option(False, "--json", help="One JSON object per line."),
        allow_syntax_errors: bool = typer.Option(
            False, "--allow-syntax-errors", help="Apply even if the result has syntax errors."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd)."),
        force_read_only: bool = typer.Option(
            False, "--force-read-only",
            help="Also change files marked read-only (no write bit); refused by default."),
    ) -> None:
        """Apply SEARCH/REPLACE blocks or an apply_patch envelope to the working tree."""
        base = root or Path.cwd()
        if not base.is_dir():
            _usage(f"--root {base} is not a directory")
        text = _read_input(patch)
        color = not as_json and sys.stdout.isatty()
        code = run_apply(text, base, check=check, as_json=as_json,
                         allow_syntax_errors=allow_syntax_errors, color=color,
                         force_read_only=force_read_only)
        raise typer.Exit(code)

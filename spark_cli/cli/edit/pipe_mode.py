"""`cat f.py | spark edit -m "..." > g.py`: the pure filter, editing stdin as a temp file.

stdout carries only the file: the result, or the ORIGINAL text unchanged on any failure or
signal (the exit code says which); everything else goes to stderr."""

from __future__ import annotations

import signal
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.cli.edit.edit_run import (
    UsageError,
    closing_lines,
    end_diffs,
    renderer_for,
    run_turn,
    summary_data,
)
from spark_cli.cli.edit.edit_settings import load, say
from spark_cli.cli.edit.signals import Terminated, signal_name, terminations
from spark_cli.cli.edit.turn_result import EXIT_OK
from spark_cli.edits.disk.textfile import decode
from spark_cli.edits.lang.grammars import language_from_content
from spark_cli.edits.model.outcome import FileRefused

if TYPE_CHECKING:
    from spark_cli.session.spend.limits import Limits

EXTENSIONS: dict[str, str] = {
    "python": ".py", "javascript": ".js", "typescript": ".ts", "tsx": ".tsx", "go": ".go",
    "rust": ".rs", "java": ".java", "c": ".c", "cpp": ".cpp", "ruby": ".rb", "bash": ".sh",
    "json": ".json", "yaml": ".yaml", "toml": ".toml", "html": ".html", "css": ".css",
    "markdown": ".md", "text": ".txt",
}
ALIASES: dict[str, str] = {"py": "python", "js": "javascript", "ts": "typescript",
                           "sh": "bash", "shell": "bash", "rs": "rust", "md": "markdown",
                           "c++": "cpp", "yml": "yaml", "txt": "text"}


def stdin_file_name(lang: str | None, data_text: str) -> str:
    """``stdin.<ext>`` for ``--lang`` (validated) or the detected language."""
    if lang is not None:
        name = ALIASES.get(lang.lower(), lang.lower())
        if name not in EXTENSIONS:
            known = ", ".join(sorted(EXTENSIONS))
            raise UsageError(f"--lang {lang!r} is not a known language; use one of {known}")
    else:
        name = language_from_content(data_text) or "text"
    return "stdin" + EXTENSIONS.get(name, ".txt")


def edit_stdin(data: bytes, instruction: str, cwd_root: Path, flags: dict[str, object], *,
               lang: str | None, dry_run: bool, output_format: str,
               limits: Limits | None = None) -> int:
    """The pipe front end on stdin's ``data``; returns the exit code (128 + n for a signal)."""
    out = _Output()
    with terminations():
        try:
            return _filter(data, instruction, cwd_root, flags, out, lang=lang, dry_run=dry_run,
                           output_format=output_format, limits=limits)
        except (Terminated, KeyboardInterrupt) as exc:
            signum = exc.signum if isinstance(exc, Terminated) else signal.SIGINT
            if not out.started:
                out.write(data)
                say(f"spark edit: stopped by {signal_name(signum)}: the original text was "
                    "written to stdout unchanged")
            return 128 + int(signum)


class _Output:
    """stdout, written once: a late signal does not write the original after the result."""

    __slots__ = ("started",)

    def __init__(self) -> None:
        self.started = False

    def write(self, data: bytes) -> None:
        self.started = True
        stream = sys.stdout.buffer
        stream.write(data)
        stream.flush()


def _filter(data: bytes, instruction: str, cwd_root: Path, flags: dict[str, object],
            out: _Output, *, lang: str | None, dry_run: bool, output_format: str,
            limits: Limits | None) -> int:
    try:
        text = decode(data, name="stdin").text
    except FileRefused as exc:
        raise UsageError(exc.message) from None
    name = stdin_file_name(lang, text)
    # the user's project config still applies; a filter declares no tools (stdin is all)
    settings = load(cwd_root, {**flags, "tools": False}, warn=True)
    renderer = renderer_for(output_format, sys.stderr)
    result_bytes = data
    with tempfile.TemporaryDirectory(prefix="spark-pipe-") as tmp:
        root = Path(tmp).resolve()
        target = root / name
        target.write_bytes(data)
        result = run_turn(settings, root, [name], instruction, renderer,
                          dry_run=dry_run, limits=limits)
        code: int = result.exit_code()
        for path, diff in end_diffs(result, root, {name: text}, dry_run=dry_run):
            renderer.diff(path, diff)
        others = sorted({o.path for o in result.outcomes if o.ok and o.path != name})
        if others:
            renderer.note(f"ignored: edits to other files ({', '.join(others)}); a pipe "
                          f"carries only {name}")
        if code == EXIT_OK and not dry_run:
            result_bytes = target.read_bytes() if target.exists() else b""
    if result.interrupted:
        how = "interrupted" if result.signal == 2 else f"stopped by {signal_name(result.signal)}"
        say(f"spark edit: {how}: the original text was written to stdout unchanged")
    elif result.failure is not None:
        say(f"spark edit: {result.failure.message}")
    for line in closing_lines(result, settings):
        say(line)
    if result.no_edit is not None:
        renderer.note("no edit: the original text was written to stdout unchanged")
    elif code != EXIT_OK and not result.interrupted and result.failure is None:
        renderer.note("edit refused: the original text was written to stdout unchanged")
    renderer.summary(summary_data(result, dry_run=dry_run, code=code))
    out.write(result_bytes)
    return code


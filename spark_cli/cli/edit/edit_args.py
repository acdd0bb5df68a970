"""`spark edit`'s arguments, read without typer when they are plain (the start-up fast path);
anything else returns ``None`` and typer parses it (tests/cli/edit/test_edit_args.py checks
both agree). Its saving: docs/benchmarks.md ``## Ledger`` (``edit_args``); paired:
`spark bench oneshot --no-docs` with and without ``SPARK_PLAIN=edit_args``."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path
from typing import Any

from spark_cli.record import record

_VALUES = {
    "-m": "message", "--message": "message", "--provider": "provider", "--model": "model",
    "--base-url": "base_url", "--max-output-tokens": "max_output_tokens",
    "--format": "edit_format", "--root": "root", "--lang": "lang", "--commands": "commands",
    "--best-of": "best_of", "--judge": "judge",
    "--output-format": "output_format", "--max-turns": "max_turns", "--timeout": "timeout",
}
_FLAGS = {"--dry-run": "dry_run", "--json": "as_json", "--test": "run_tests",
          "--allow-syntax-errors": "allow_syntax_errors", "--deep": "deep",
          "--no-tools": "no_tools"}


@record
class EditArgs:
    """What `spark edit` was asked to do, as its command line said it."""

    message: str
    paths: list[str] = field(default_factory=list)
    dry_run: bool = False
    as_json: bool = False
    run_tests: bool = False
    provider: str | None = None
    model: str | None = None
    base_url: str | None = None
    max_output_tokens: int | None = None
    edit_format: str | None = None
    allow_syntax_errors: bool = False
    deep: bool = False
    """``--deep``: the deep track's settings (``[deep]``)."""
    root: Path | None = None
    lang: str | None = None
    no_tools: bool = False
    """``--no-tools``: the model gets no tools (for models that cannot call them)."""
    commands: str | None = None
    """``--commands ask|sandbox|off|full-access``: may the model run commands (default: off)."""
    best_of: int | None = None
    """``--best-of N``: race N answers, keep the best (None: the config's ``best_of``)."""
    judge: str | None = None
    """``--judge evidence|deep``: deep adds the deep model as the race's last tiebreak."""
    output_format: str | None = None
    """``--output-format text|json|stream-json`` (``--json``: json)."""
    max_turns: int | None = None
    """``--max-turns N``: model requests in the turn's tool loop."""
    timeout: float | None = None
    """``--timeout SECONDS``: the run's wall-clock budget."""


def parse_edit_args(argv: list[str]) -> EditArgs | None:
    """``argv`` (after ``edit``) as EditArgs, or None: let typer parse it.

    Click's rules kept: options and PATHs interleave, ``--`` ends options, ``--opt=value``
    equals ``--opt value``, a repeated option keeps its last value."""
    values: dict[str, str] = {}
    flags: set[str] = set()
    paths: list[str] = []
    rest = iter(argv)
    for arg in rest:
        if arg == "--":
            paths.extend(rest)
            break
        if not arg.startswith("-") or arg == "-":
            paths.append(arg)
            continue
        name, eq, attached = arg.partition("=")
        if name in _FLAGS and not eq:
            flags.add(_FLAGS[name])
            continue
        key = _VALUES.get(name)
        if key is None or (eq and not name.startswith("--")):
            return None  # unknown, abbreviated, --help, a flag given a value, -m=...
        value = attached if eq else next(rest, None)
        if value is None or (not eq and value.startswith("-")):
            return None  # a missing value, or one typer may read differently
        values[key] = value
    return _build(values, flags, paths)


def _build(values: dict[str, str], flags: set[str], paths: list[str]) -> EditArgs | None:
    if "message" not in values:
        return None  # typer says the option is missing
    fields: dict[str, Any] = {**values, **dict.fromkeys(flags, True), "paths": paths}
    for key in ("max_output_tokens", "max_turns", "best_of"):
        tokens = values.get(key)
        if tokens is not None:
            if not (tokens.isascii() and tokens.isdigit()):
                return None  # typer explains the bad number
            fields[key] = int(tokens)
    if fields.get("max_output_tokens") == 0:
        return None
    if "timeout" in values:
        try:
            fields["timeout"] = float(values["timeout"])
        except ValueError:
            return None
    if "root" in values:
        fields["root"] = Path(values["root"])
    return EditArgs(**fields)

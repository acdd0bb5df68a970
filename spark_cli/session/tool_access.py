"""The session's one door to the model's tools (``spark_cli.tools``): specs, runner, labels.

``run_tool`` is imported when a turn first runs a tool; :func:`call_label` and
:func:`call_line` say a call in a few words, the same for the TUI and ``spark edit``.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Collection
from functools import partial
from pathlib import Path
from typing import Any, Protocol

from spark_cli.protocol.channel import ToolSpec
from spark_cli.tools.defs import RUN_COMMAND_DEF, TOOL_DEFS
from spark_cli.tools.model import ToolDef, ToolResult

MAX_LABEL = 80
_VERBS = {"read_file": "read", "search": "search", "list_files": "list"}


class RunTool(Protocol):
    """Runs one call, blocking; never raises; returns early once ``cancel`` is set."""

    def __call__(self, root: Path, name: str, arguments: str, /, *,
                 readable: Collection[str] = (),
                 cancel: threading.Event | None = None) -> ToolResult: ...


def spec_of(tool: ToolDef) -> ToolSpec:
    """A tool's definition (spark's own or an MCP server's) as the protocol's spec."""
    return ToolSpec(tool.name, tool.description, dict(tool.parameters))


_SPECS = tuple(map(spec_of, (*TOOL_DEFS, RUN_COMMAND_DEF)))


def tool_specs(*, commands: bool = False) -> tuple[ToolSpec, ...]:
    """The tools every request declares, as the protocol's specs (``run_command`` last)."""
    return _SPECS if commands else _SPECS[:-1]


def default_runner(buffers: Callable[[str], str | None] | None = None) -> RunTool:
    """``spark_cli.tools.run.run_tool`` (reading open files from ``buffers`` first: an editor's)."""
    from spark_cli.tools.run import run_tool  # deferred: launch -> request

    return run_tool if buffers is None else partial(run_tool, buffers=buffers)


def shorten(text: str, room: int) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``room`` with ``…``."""
    text = " ".join(text.split())
    return text if len(text) <= room else text[:max(1, room - 1)] + "…"


def call_label(name: str, arguments: str) -> str:
    """``name``'s call with ``arguments`` (the model's JSON text) as a short label."""
    try:
        args: Any = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        args = None
    if not isinstance(args, dict):
        return shorten(f"{name} {arguments}", MAX_LABEL)
    verb = name[5:].replace("__", " ", 1) if name.startswith("mcp__") else _VERBS.get(name, name)
    words: list[str] = []
    if name == "search":
        words.append(str(args.get("pattern", "")))
        if args.get("path"):
            words.append(f"in {args['path']}")
        if args.get("glob"):
            words.append(str(args["glob"]))
    elif name == "read_file":
        words.append(str(args.get("path", "")))
        start, end = args.get("start_line"), args.get("end_line")
        if start is not None or end is not None:
            words.append(f"{start if start is not None else 1}–{end if end is not None else ''}")
    elif name == "list_files":
        words.append(str(args.get("path") or "."))
        if args.get("glob"):
            words.append(str(args["glob"]))
    else:
        words.extend(f"{k}={v}" for k, v in args.items())
    return shorten(" ".join([verb, *(w for w in words if w)]), MAX_LABEL)


def call_line(label: str, summary: str) -> str:
    """The call and its result as one line: ``search TAX_RATE → 3 hits``."""
    verb, _, rest = label.partition(" ")
    if rest and summary.startswith(rest):
        return f"{verb} {summary}"
    return f"{label} → {summary}"

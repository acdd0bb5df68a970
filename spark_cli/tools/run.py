"""`run_tool`: runs one of the three tools by name and never raises; every failure (and a
set ``cancel``) is a `ToolResult` with ``ok=False`` and one line the model can act on."""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from spark_cli.tools import list_files, read_file, search
from spark_cli.tools.access import Access
from spark_cli.tools.defs import LIST_FILES, PARAMS, READ_FILE, SEARCH
from spark_cli.tools.model import ToolFailure, ToolResult, Value, parse_arguments
from spark_cli.tools.repo_files import Cancelled

if TYPE_CHECKING:
    import threading

CANCELLED = ToolResult(False, "cancelled: the user interrupted this call", "cancelled")
_Run: TypeAlias = "Callable[[Access, dict[str, Value], threading.Event | None], ToolResult]"

_RUNS: dict[str, _Run] = {
    READ_FILE: read_file.read_file, SEARCH: search.search, LIST_FILES: list_files.list_files,
}


def run_tool(root: Path, name: str, arguments: str, *, readable: Collection[str] = (),
             cancel: threading.Event | None = None,
             buffers: Callable[[str], str | None] | None = None) -> ToolResult:
    """Run the tool ``name`` with the JSON ``arguments`` a model wrote, inside ``root``."""
    try:
        if cancel is not None and cancel.is_set():
            return CANCELLED
        run = _RUNS.get(name) if isinstance(name, str) else None
        if run is None:
            shown = repr(name)[:80]
            return ToolResult(False, f"unknown tool {shown}; the tools are "
                              f"{', '.join(_RUNS)}", "error: unknown tool")
        args = parse_arguments(name, arguments, PARAMS[name])
        return run(Access(root, readable, buffers), args, cancel)
    except ToolFailure as failure:
        return failure.result()
    except Cancelled:
        return CANCELLED
    except Exception as exc:  # a bug or an OS surprise must not stop the turn
        detail = str(exc).replace("\n", " ")[:200]
        return ToolResult(False, f"{name} failed: {type(exc).__name__}: {detail}",
                          "error: internal")

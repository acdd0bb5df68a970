"""The three tools by name: their declarations (`TOOL_DEFS`) and `run_tool`, which never raises.

Every call is answered: an unknown tool, arguments that are not a JSON object or
do not fit the schema, a path outside the repo, a missing or binary file, an
error nobody foresaw: each is a `ToolResult` with ``ok=False`` and one line the
model can act on. A set ``cancel`` event (Esc) gives ``ok=False`` "cancelled",
checked before the call, between files and every few thousand matching lines.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from spark_cli.tools import list_files, read_file, search
from spark_cli.tools.access import Access
from spark_cli.tools.arguments import Param, Value, parse_arguments, schema
from spark_cli.tools.model import ToolDef, ToolFailure, ToolResult
from spark_cli.tools.repo_files import Cancelled

if TYPE_CHECKING:
    import threading

CANCELLED = ToolResult(False, "cancelled: the user interrupted this call", "cancelled")
_Run: TypeAlias = "Callable[[Access, dict[str, Value], threading.Event | None], ToolResult]"


@dataclass(frozen=True, slots=True)
class _Tool:
    """A tool as the runner holds it: its definition, its parameters, its function."""

    definition: ToolDef
    params: tuple[Param, ...]
    run: _Run


def _tool(name: str, description: str, params: tuple[Param, ...], run: _Run) -> _Tool:
    return _Tool(ToolDef(name, description, schema(params)), params, run)


_TOOLS = {tool.definition.name: tool for tool in (
    _tool("read_file", read_file.DESCRIPTION, read_file.PARAMS, read_file.read_file),
    _tool("search", search.DESCRIPTION, search.PARAMS, search.search),
    _tool("list_files", list_files.DESCRIPTION, list_files.PARAMS, list_files.list_files),
)}
TOOL_DEFS: tuple[ToolDef, ...] = tuple(tool.definition for tool in _TOOLS.values())


def run_tool(root: Path, name: str, arguments: str, *, readable: Collection[str] = (),
             cancel: threading.Event | None = None) -> ToolResult:
    """Run the tool ``name`` with the JSON ``arguments`` a model wrote, inside ``root``."""
    try:
        if cancel is not None and cancel.is_set():
            return CANCELLED
        tool = _TOOLS.get(name) if isinstance(name, str) else None
        if tool is None:
            shown = repr(name)[:80]
            return ToolResult(False, f"unknown tool {shown}; the tools are "
                              f"{', '.join(_TOOLS)}", "error: unknown tool")
        args = parse_arguments(name, arguments, tool.params)
        return tool.run(Access(root, readable), args, cancel)
    except ToolFailure as failure:
        return failure.result()
    except Cancelled:
        return CANCELLED
    except Exception as exc:  # a bug or an OS surprise must not stop the turn
        detail = str(exc).replace("\n", " ")[:200]
        return ToolResult(False, f"{name} failed: {type(exc).__name__}: {detail}",
                          "error: internal")

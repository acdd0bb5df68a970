"""The session's one door to the model's tools (``spark_cli.tools``): their specs and a runner.

``spark_cli.tools`` is a leaf (pure functions over the repo, confined like
edits): ``TOOL_DEFS`` names each tool with its description and JSON-schema
parameters, and ``run_tool(root, name, arguments, *, readable, cancel)``
runs one call, blocking, and never raises (a bad call is an error *result*).
The session turns the definitions into the protocol's :class:`ToolSpec` for
``TurnRequest.tools`` and runs calls through a :class:`RunTool` (tests pass a
stand-in). ``run_tool`` is imported when a turn first runs a tool.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Collection
from functools import partial
from pathlib import Path
from typing import Protocol

from spark_cli.protocol.channel import ToolSpec
from spark_cli.tools.defs import RUN_COMMAND_DEF, TOOL_DEFS


class ToolResultLike(Protocol):
    """What a tool call came to (``spark_cli.tools.ToolResult``)."""

    @property
    def ok(self) -> bool: ...

    @property
    def output(self) -> str:
        """The text for the model."""
        ...

    @property
    def summary(self) -> str:
        """A few words for a person (``3 hits``)."""
        ...


class RunTool(Protocol):
    """Runs one call, blocking; never raises; returns early once ``cancel`` is set."""

    def __call__(self, root: Path, name: str, arguments: str, /, *,
                 readable: Collection[str] = (),
                 cancel: threading.Event | None = None) -> ToolResultLike: ...


_specs: tuple[ToolSpec, ...] | None = None


def tool_specs(*, commands: bool = False) -> tuple[ToolSpec, ...]:
    """The tools every request declares (unless tools are off), as the protocol's specs;
    with ``commands``, ``run_command`` last."""
    global _specs
    if _specs is None:
        _specs = tuple(ToolSpec(d.name, d.description, dict(d.parameters))
                       for d in (*TOOL_DEFS, RUN_COMMAND_DEF))
    return _specs if commands else _specs[:-1]


def default_runner(buffers: Callable[[str], str | None] | None = None) -> RunTool:
    """``spark_cli.tools.run.run_tool`` (reading open files from ``buffers`` first: an editor's)."""
    from spark_cli.tools.run import run_tool  # deferred: launch -> request

    return run_tool if buffers is None else partial(run_tool, buffers=buffers)

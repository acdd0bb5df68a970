"""The model's read-only tools: read_file, search, list_files, as pure functions over the repo.

A leaf like ``edits`` and ``checks``; the repo walk honouring ``.gitignore``
(:mod:`.repo_files`) lives here too. docs/tools.md describes the tools.
"""

from __future__ import annotations

from spark_cli.tools.defs import TOOL_DEFS
from spark_cli.tools.model import ToolDef, ToolResult

__all__ = ["TOOL_DEFS", "ToolDef", "ToolResult"]

"""The model's read-only tools: read_file, search, list_files, as pure functions over the repo.

A leaf like ``edits`` and ``checks``: of spark it imports only the edits package's
confinement and text decoding (``spark_cli.edits.disk``), its refusal type,
``spark_cli.text_digest`` and the record type (``spark_cli.record``). `run_tool` never
raises; docs/tools.md describes the tools, their outputs and caps. The repo walk
honouring ``.gitignore`` (:mod:`.repo_files`) lives here too, and the session's repo
map uses it. A request declares the tools (``TOOL_DEFS``, :mod:`.defs`: plain data)
before any runs, so ``run_tool`` (:mod:`.run`, which pulls in the three tools) is
imported from its module on first use.
"""

from __future__ import annotations

from spark_cli.tools.defs import TOOL_DEFS
from spark_cli.tools.model import ToolDef, ToolResult

__all__ = ["TOOL_DEFS", "ToolDef", "ToolResult"]

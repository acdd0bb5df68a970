"""The model's read-only tools: read_file, search, list_files, as pure functions over the repo.

A leaf like ``edits`` and ``checks``: it imports nothing of spark but the edits
package's confinement and text decoding (``spark_cli.edits.disk``) and its refusal
type. `run_tool` never raises; docs/tools.md describes the tools, their outputs and
caps. The repo walk honouring ``.gitignore`` (:mod:`.repo_files`) lives here too:
the session's repo map uses it.
"""

from spark_cli.tools.model import ToolDef, ToolResult
from spark_cli.tools.run import TOOL_DEFS, run_tool

__all__ = ["TOOL_DEFS", "ToolDef", "ToolResult", "run_tool"]

"""A small brain that calls tools, for the engine's tool tests (not a test module)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from spark_cli.engine.brains.base import CALL, OUTPUT, BrainCall

SEARCH_ARGS = json.dumps({"pattern": "\\btotal_price\\b", "glob": "*.py"})
READ_ARGS = json.dumps({"path": "src/shop/cart.py", "note": "line\nbreak \"quoted\""})
TOOLS = [{"type": "function", "name": name, "description": f"the {name} tool",
          "parameters": {"type": "object", "properties": {}}}
         for name in ("read_file", "search", "list_files")]
CHAT_TOOLS = [{"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
              for t in TOOLS]


class ToolBrain:
    """With tools and no outputs yet: a preamble, then ``search`` and ``read_file`` (one of
    them when parallel calls are off); ``no preamble`` skips the text. Once outputs came
    back: ``outputs:`` and each output with its call's name. Without tools: ``no tools``."""

    name = "tools"

    def answer(self, request: Any) -> Iterator[str | BrainCall]:
        outputs = [t for t in request.conversation if t.role == OUTPUT]
        if not request.tools:
            yield "no tools"
            return
        if outputs:
            names = {t.call_id: t.name for t in request.conversation if t.role == CALL}
            yield "outputs: " + "; ".join(f"{names[t.call_id]}={t.text}" for t in outputs)
            return
        if "no preamble" not in request.prompt:
            yield "Let me look first.\n"
        yield BrainCall("search", SEARCH_ARGS)
        if request.parallel_tool_calls:
            yield BrainCall("read_file", READ_ARGS)


def tool_brains(model: str) -> ToolBrain:
    return ToolBrain()

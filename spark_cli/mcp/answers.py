"""A server's answer to a call as the model reads it: text, with a note for what is not text.

The text blocks, joined, as the server wrote them; structured content as compact
JSON text when the server sent no text (with text, the protocol has the text
repeat it). Images, audio and binary resources become one-line notes
(``[image/png image, 1.2 KB, not shown]``); a resource link its URI. The answer is
cut at :data:`MAX_OUTPUT` characters with a note; the session's window budget
applies after that, as to every tool output.
"""

from __future__ import annotations

import json
from typing import Any

from spark_cli.tools.model import ToolResult

MAX_OUTPUT = 60_000


def _size(data: str) -> str:
    size = len(data) * 3 // 4
    return f"{size / 1024:.1f} KB" if size >= 1024 else f"{size} B"


def _block(block: Any) -> tuple[str, bool]:
    """``(text, is_text)`` of one content block."""
    kind = getattr(block, "type", "")
    if kind == "text":
        return block.text, True
    if kind in ("image", "audio"):
        return f"[{block.mime_type} {kind}, {_size(block.data)}, not shown]", False
    if kind == "resource":
        res = block.resource
        text = getattr(res, "text", None)
        if isinstance(text, str):
            return f"[resource {res.uri}]\n{text}", True
        return f"[resource {res.uri}: {res.mime_type or 'binary'}, " \
               f"{_size(getattr(res, 'blob', ''))}, not shown]", False
    if kind == "resource_link":
        return f"[resource link {block.uri}]", False
    return f"[{kind or 'unknown'} content, not shown]", False


def to_result(answer: Any, tool: str) -> ToolResult:
    """``answer`` (a ``CallToolResult``) as the session's tool result."""
    parts = [_block(b) for b in answer.content]
    structured = answer.structured_content
    if structured is not None and not any(is_text for _, is_text in parts):
        parts.insert(0, (json.dumps(structured, ensure_ascii=False, separators=(",", ":")),
                         True))
    output = "\n".join(p for p, _ in parts) or "(no output)"
    if len(output) > MAX_OUTPUT:
        output = output[:MAX_OUTPUT] + f"\n[cut: {len(output) - MAX_OUTPUT} more characters]"
    if answer.is_error:
        first = output.strip().splitlines()[0] if output.strip() else "failed"
        return ToolResult(False, f"error from {tool}: {output}", f"error: {first[:80]}")
    lines = output.count("\n") + 1
    return ToolResult(True, output, f"{lines} line" + ("" if lines == 1 else "s"))


def failure(message: str) -> ToolResult:
    """A call that got no answer (a bad call, a dead or slow server)."""
    return ToolResult(False, f"error: {message}", f"error: {message[:80]}")

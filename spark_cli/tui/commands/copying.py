"""``/copy``: what the clipboard gets from the conversation: the last answer as written, or
its last fenced code block that is not an edit block."""

from __future__ import annotations

from collections.abc import Sequence

from spark_cli.session.api import Message
from spark_cli.tui.transcript.markdown_stream import fence_marker

EDIT_MARKERS = ("<<<<<<< SEARCH", "*** Begin Patch")
"""A fenced block holding one of these is an edit (it landed as a diff), not code to copy."""


def last_answer(history: Sequence[object]) -> str | None:
    """The model's latest message with text, else None."""
    for item in reversed(history):
        if isinstance(item, Message) and item.role == "assistant" and item.content.strip():
            return item.content
    return None


def code_blocks(text: str) -> list[str]:
    """The fenced code blocks of ``text``, without their fences (an unclosed one to the end)."""
    blocks: list[str] = []
    body: list[str] | None = None
    opener = ""
    for line in text.splitlines():
        marker = fence_marker(line)
        if body is None:
            if marker is not None:
                body, opener = [], marker
        elif marker is not None and marker.startswith(opener) \
                and not line.strip()[len(marker):].strip():
            blocks.append("\n".join(body) + "\n")
            body = None
        else:
            body.append(line)
    if body:
        blocks.append("\n".join(body) + "\n")
    return blocks


def line_count(text: str) -> str:
    """``text``'s size as the notes say it: "1 line", "3 lines"."""
    lines = text.count("\n") + (not text.endswith("\n"))
    return f"{lines} line{'s' if lines != 1 else ''}"


def last_code(text: str) -> str | None:
    """The last fenced block of ``text`` that is not an edit, else None."""
    for block in reversed(code_blocks(text)):
        if not any(marker in block for marker in EDIT_MARKERS):
            return block
    return None

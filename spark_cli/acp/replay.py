"""What a prompt asks (its text, the files it links) and a saved conversation replayed.

A prompt's text blocks are the instruction; a ``resource_link`` to a file in the repo adds
that file to the turn (as ``spark edit PATH`` would), any other link is named in the text.
``session/load`` replays what was shown of the conversation (``SavedConversation.shown``,
kept by the TUI and by ``spark acp``; else the messages themselves): prompts as
``user_message_chunk``, answers as ``agent_message_chunk``, edits and tool calls as completed
tool calls.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import helpers
from acp.schema import ToolCallStatus

from spark_cli.session.api import Message, ToolCall
from spark_cli.session.workspace.store import SavedConversation, ShownItem

_EDITS: dict[str, ToolCallStatus] = {"edit": "completed", "partial": "completed",
                                     "refused": "failed", "rejected": "failed"}


def prompt_text(blocks: list[Any], root: Path) -> tuple[str, list[str]]:
    """The instruction and the repo files a prompt's content blocks hold."""
    texts: list[str] = []
    files: list[str] = []
    for block in blocks:
        if getattr(block, "type", "") == "text":
            texts.append(block.text)
        elif getattr(block, "type", "") == "resource_link":
            url = urlparse(block.uri)
            path = Path(unquote(url.path)) if url.scheme == "file" else None
            if path is not None and path.is_relative_to(root) and path.is_file():
                files.append(path.relative_to(root).as_posix())
            else:
                texts.append(block.uri)
    return "\n".join(texts), files


def replay(saved: SavedConversation, root: Path) -> list[Any]:
    """The updates that show ``saved`` again, in order."""
    shown = saved.shown or tuple(_from_history(saved))
    updates: list[Any] = []
    for number, item in enumerate(shown, 1):
        if item.kind == "prompt":
            updates.append(helpers.update_user_message_text(item.text))
        elif item.kind in ("answer", "failed"):
            updates.append(helpers.update_agent_message_text(item.text))
        elif item.kind in ("tool", *_EDITS):
            content = [helpers.tool_content(helpers.text_block(item.detail or item.text))]
            updates.append(helpers.start_tool_call(
                f"replay-{number}", item.text.splitlines()[0] if item.text else item.kind,
                kind="other" if item.kind == "tool" else "edit",
                status=_EDITS.get(item.kind, "completed"), content=content))
    return updates


def _from_history(saved: SavedConversation) -> list[ShownItem]:
    items: list[ShownItem] = []
    for item in saved.history:
        if isinstance(item, Message) and item.content.strip():
            text = item.content.strip()
            items.append(ShownItem("prompt", text.splitlines()[-1]) if item.role == "user"
                         else ShownItem("answer", text))
        elif isinstance(item, ToolCall):
            items.append(ShownItem("tool", f"{item.name} {item.arguments}"))
    return items

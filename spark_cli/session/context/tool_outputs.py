"""Tool calls and outputs in the window: what they cost (``protocol/tokens.py``, plus
``ITEM_OVERHEAD``), and how they make room."""

from __future__ import annotations

from collections.abc import Sequence

from spark_cli.protocol.channel import ConversationItem, Message, ToolCall, ToolOutput
from spark_cli.protocol.tokens import count_tokens

ITEM_OVERHEAD = 8
"""Tokens a call or an output costs on the wire beyond its text (ids, type, role)."""
DROPPED = ("[tool output dropped to fit the context window ({tokens:,} tokens); call the "
           "tool again if you still need it]")
CUT = ("[output cut to fit the context window: {shown:,} of {total:,} lines shown; ask for "
       "less (a narrower line range, a more specific pattern)]")


def item_tokens(item: ConversationItem) -> int:
    """What one item of the conversation costs in the window."""
    if type(item) is Message:
        return count_tokens(item.content)
    if type(item) is ToolCall:
        return count_tokens(item.name) + count_tokens(item.arguments) + ITEM_OVERHEAD
    assert type(item) is ToolOutput
    return count_tokens(item.output) + ITEM_OVERHEAD


def items_tokens(items: Sequence[ConversationItem]) -> int:
    return sum(item_tokens(item) for item in items)


def shrink_outputs(items: Sequence[ConversationItem], excess: int, *,
                   keep_from: int | None = None) -> tuple[list[ConversationItem], int]:
    """``items``, oldest tool outputs (before ``keep_from``) made notes to free ``excess``."""
    out = list(items)
    freed = 0
    end = len(out) if keep_from is None else keep_from
    for index in range(end):
        if freed >= excess:
            break
        item = out[index]
        if type(item) is not ToolOutput or item.output.startswith(DROPPED[:20]):
            continue
        tokens = count_tokens(item.output)
        note = DROPPED.format(tokens=tokens)
        saved = tokens - count_tokens(note)
        if saved <= 0:
            continue
        out[index] = ToolOutput(item.call_id, note)
        freed += saved
    return out, freed


def drop_turns(items: Sequence[ConversationItem],
               excess: int) -> tuple[list[ConversationItem], int, int]:
    """``items`` less their oldest whole turns to free ``excess``; freed, turns dropped."""
    starts = [i for i, item in enumerate(items)
              if type(item) is Message and item.role == "user"]
    freed = dropped = cut = 0
    for end in (*starts[1:], len(items)):
        if freed >= excess:
            break
        freed += items_tokens(items[cut:end])
        cut, dropped = end, dropped + 1
    return list(items[cut:]), freed, dropped


def cut_output(text: str, room: int) -> str:
    """``text`` cut at a line to at most ``room`` tokens, the note included."""
    if count_tokens(text) <= room:
        return text
    lines = text.splitlines(keepends=True)
    note = CUT.format(shown=len(lines), total=len(lines))
    left = room - count_tokens(note) - 1
    shown: list[str] = []
    for line in lines:
        cost = count_tokens(line)
        if cost > left:
            break
        shown.append(line)
        left -= cost
    body = "".join(shown)
    if body and not body.endswith("\n"):
        body += "\n"
    return body + CUT.format(shown=len(shown), total=len(lines))

"""How a compaction request is told from a turn: the instructions it carries, and the head of
the one message a compaction leaves (what a server, the bundled engine, recognises)."""

from __future__ import annotations

COMPACT_INSTRUCTIONS = (
    "You are compacting a conversation between a user and a coding assistant. Write a summary "
    "that lets the assistant carry on without the turns above: what the user asked for, what "
    "was decided, what was done and what is left to do. Be brief and concrete: name files, "
    "functions and commands. Do not write edits or call tools.")
SUMMARY_HEAD = "[Summary of the earlier conversation, compacted by spark]"
FOCUS_PREFIX = "Focus the summary on: "


def is_compaction(instructions: str) -> bool:
    """The request asks for a summary of its conversation, not for a turn."""
    return instructions.startswith(COMPACT_INSTRUCTIONS[:48])

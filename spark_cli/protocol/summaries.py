"""A compaction's data and marks: what the model has instead of the oldest turns, how a
compaction request is told from a turn (its instructions) and the head of its summary."""

from __future__ import annotations

from spark_cli.record import record

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


@record
class Compaction:
    """A compaction's result: the one message that stands for ``history[:covers]``."""

    summary: str
    covers: int

"""The rules brain's answers to spark's own asks: a compaction's deterministic summary of the
conversation (each ask and its answer's first line, the tools used), and ``/init``'s first
AGENTS.md from the ask's layout and test command lines, as one edit that creates the file."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.engine.brains.base import CALL, BrainRequest, BrainTurn
from spark_cli.engine.brains.rules.instruction_parser import instruction_text
from spark_cli.protocol.agents_file import AGENTS_FILE, LAYOUT_HEAD, TEST_HEAD
from spark_cli.protocol.summaries import FOCUS_PREFIX, SUMMARY_HEAD

LISTED = 8
"""The latest asks listed one by one; the earlier ones are counted."""
_EARLIER = re.compile(r"Summary of (\d+) earlier turns?")


def summary(request: BrainRequest) -> Iterator[str]:
    *folded, ask = request.conversation or ()
    focus = ask.text.split(FOCUS_PREFIX, 1)[1].strip() if FOCUS_PREFIX in ask.text else ""
    earlier, turns, calls = _read(folded)
    total = earlier + len(turns)
    yield f"Summary of {total} earlier turn{'s' if total != 1 else ''}"
    yield f" (focus: {focus}).\n" if focus else ".\n"
    hidden = earlier + max(0, len(turns) - LISTED)
    if hidden:
        yield f"- {hidden} earlier turn{'s' if hidden != 1 else ''}, summarised before.\n"
    for asked, answered in turns[-LISTED:]:
        yield f"- The user asked: {asked}\n"
        if answered:
            yield f"  The assistant: {answered}\n"
    if calls:
        yield "Tools used: " + ", ".join(f"{name} ×{n}" for name, n in sorted(calls.items()))
        yield ".\n"


def _read(folded: list[BrainTurn]) -> tuple[int, list[list[str]], Counter[str]]:
    """Turns an earlier summary stood for; each ask with its answer's first line; calls."""
    earlier = 0
    turns: list[list[str]] = []  # [asked, answered]
    calls: Counter[str] = Counter()
    for turn in folded:
        if turn.role == "user" and turn.text.startswith(SUMMARY_HEAD):
            found = _EARLIER.search(turn.text)
            earlier += int(found.group(1)) if found else 1
        elif turn.role == "user":
            asked = " ".join(instruction_text(turn.text).split())
            turns.append([asked[:160] or "(files only)", ""])
        elif turn.role == "assistant" and turns and not turns[-1][1]:
            first = next((line.strip() for line in turn.text.splitlines() if line.strip()), "")
            turns[-1][1] = first[:160]
        elif turn.role == CALL:
            calls[turn.name] += 1
    return earlier, turns, calls


def agents_file(request: BrainRequest) -> Iterator[str]:
    lines = instruction_text(request.prompt).splitlines()
    layout = next((ln[len(LAYOUT_HEAD):] for ln in lines if ln.startswith(LAYOUT_HEAD)), "")
    tests = next((ln[len(TEST_HEAD):] for ln in lines if ln.startswith(TEST_HEAD)), "")
    entries = [e.strip() for e in layout.split(",") if e.strip() and e.strip() != "(empty)"]
    text = "".join([
        "# AGENTS.md\n\nNotes for coding agents working in this repository (a first draft by "
        "`/init`: edit it).\n\n## Layout\n\n",
        *(f"- `{entry}`\n" for entry in entries),
        "\n## Tests\n\n",
        f"Run `{tests}`, and only when asked.\n" if tests and tests != "none found"
        else "No test command was found.\n",
        "\n## Conventions\n\nKeep edits minimal and in the style of the code around them.\n"])
    yield f"Writing a first {AGENTS_FILE}.\n\n"
    if request.edit_format == "apply_patch":
        yield render_apply_patch([FileEdit("add", AGENTS_FILE, (Hunk("", text),), "apply_patch")])
    else:
        yield render_search_replace(AGENTS_FILE, "", text, fence="")
    yield f"\nCreated {AGENTS_FILE}: {len(entries)} layout entries.\n"

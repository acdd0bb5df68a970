"""The rules brain's answer to ``/init``: a first AGENTS.md from the ask's layout and test
command lines, as one edit that creates the file."""

from __future__ import annotations

from collections.abc import Iterator

from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.engine.brains.base import BrainRequest
from spark_cli.engine.brains.rules.instruction_parser import instruction_text
from spark_cli.protocol.agents_file import AGENTS_FILE, LAYOUT_HEAD, TEST_HEAD


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

"""``/init``: the ask for a first AGENTS.md from the repo's layout and its test command (the
model writes it as an undoable edit; nothing is asked when AGENTS.md exists)."""

from __future__ import annotations

from pathlib import Path

from spark_cli.checks.detect import detect_test_command
from spark_cli.protocol.agents_file import AGENTS_FILE, INIT_HEAD, LAYOUT_HEAD, TEST_HEAD

MOST_ENTRIES = 40


def init_ask(root: Path, test_command: str | None) -> str | None:
    """The message that asks for AGENTS.md; None when the repo has one already."""
    if (root / AGENTS_FILE).exists():
        return None
    entries = sorted((p for p in root.iterdir() if not p.name.startswith(".")),
                     key=lambda p: (not p.is_dir(), p.name))[:MOST_ENTRIES]
    layout = ", ".join(p.name + ("/" if p.is_dir() else "") for p in entries)
    found = detect_test_command(root, test_command)
    tests = "none found" if found is None else found.display if found.shell else \
        " ".join((Path(found.argv[0]).name, *found.argv[1:]))  # not this machine's path
    return (f"{INIT_HEAD}\n{LAYOUT_HEAD}{layout or '(empty)'}\n{TEST_HEAD}{tests}\n"
            f"Create {AGENTS_FILE} with one edit (an empty SEARCH creates a file): what the "
            "project is, its layout, how to run its tests, and the conventions the code "
            "follows, in under 60 lines, for a coding agent new to it.")

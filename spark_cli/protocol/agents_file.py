"""``/init``'s ask for a first AGENTS.md, as spark writes it and the bundled engine reads it:
its head, then the repo's layout and its test command, one captioned line each."""

from __future__ import annotations

AGENTS_FILE = "AGENTS.md"
INIT_HEAD = "Write a first AGENTS.md for this repository."
LAYOUT_HEAD = "Layout: "
TEST_HEAD = "Test command: "


def is_init(prompt: str) -> bool:
    """The message holds ``/init``'s ask (a line of its own: context may come before it)."""
    return any(line.strip() == INIT_HEAD for line in prompt.splitlines())

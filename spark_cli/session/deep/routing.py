"""Routing help: one line suggesting ``/deep`` when a prompt looks like deep work (many
files, words of broad change, or a context over `WINDOW_SHARE` of the window); pure."""

from __future__ import annotations

import re

from spark_cli.session.tool_access import shorten

MANY_FILES = 4
WINDOW_SHARE = 0.6
_PATH = re.compile(r"(?<![\w/.-])[\w.-]*(?:/[\w.-]+)*\.[A-Za-z]\w{0,7}\b")
_BROAD = re.compile(
    r"\b(?:refactor\w*\b.{0,60}?\b(?:across|throughout|everywhere|all)|migrat\w+|redesign\w*"
    r"|re-?architect\w*|architecture|rewrite the\b|throughout the\b|across the (?:code|repo|"
    r"project|package|module)\w*|every file|all (?:the )?files|whole (?:code|repo|project)\w*"
    r"|codebase|port (?:it|this|the \w+) to)\b",
    re.IGNORECASE | re.DOTALL)


def suggest_deep(instruction: str, tokens: int | None, window: int) -> str | None:
    """One line suggesting ``/deep`` for ``instruction``, or None (``tokens``: of its context,
    ``window``: the fast model's)."""
    text = instruction.strip()
    if not text or text.startswith("/"):
        return None
    paths = {m.group() for m in _PATH.finditer(text) if not m.group()[0].isdigit()}
    if len(paths) >= MANY_FILES:
        why = f"it names {len(paths)} files"
    elif (found := _BROAD.search(text)) is not None:
        why = f"“{' '.join(found.group().split())}” sounds like work across the code"
    elif tokens is not None and window > 0 and tokens > WINDOW_SHARE * window:
        why = (f"its context ({tokens:,} tokens) would fill "
               f"{tokens / window:.0%} of the fast model's {window:,}-token window")
    else:
        return None
    return f"tip: {why}; /deep {shorten(text, 40)} hands it to the deep model in the background"

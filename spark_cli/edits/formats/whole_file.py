"""An answer that held no edit block: what it held instead (`no_edit`), and aider's
"whole" format (`whole_file_text`: a fence that is a whole new version of one file)."""

from __future__ import annotations

import difflib
import re
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Literal

from spark_cli.record import record

WHOLE_FILE_MAX_LINES = 200  # a whole-file answer replaces files this small (old and new)

_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<mark>`{3,}|~{3,})(?P<info>[^`\n]*)$")

NoEditKind = Literal["empty", "tools_only", "prose", "whole_file", "snippet", "cut"]


@record
class Fenced:
    """One closed code fence of an answer: its info string and its text."""

    info: str
    text: str

    @property
    def lines(self) -> int:
        return self.text.count("\n")


@record
class NoEdit:
    """What an answer without an edit block held: ``kind`` and the sentence to show."""

    kind: NoEditKind
    message: str


def fences(answer: str) -> list[Fenced]:
    """Every closed code fence in ``answer``, in order (an unclosed one is left out)."""
    found: list[Fenced] = []
    opener: re.Match[str] | None = None
    body: list[str] = []
    for line in answer.splitlines():
        match = _FENCE.match(line)
        if opener is None:
            if match is not None:
                opener, body = match, []
            continue
        mark = opener.group("mark")
        if (match is not None and not match.group("info").strip()
                and match.group("mark")[0] == mark[0] and len(match.group("mark")) >= len(mark)):
            found.append(Fenced(opener.group("info").strip(), "".join(f"{b}\n" for b in body)))
            opener = None
            continue
        body.append(line)
    return found


def looks_whole(old: str, new: str) -> bool:
    """Whether ``new`` reads as a whole new version of ``old``, not a piece of it."""
    old_lines, new_lines = old.splitlines(), new.splitlines()
    if not old_lines or not new_lines or len(new_lines) < 0.7 * len(old_lines):
        return False
    ratio = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).ratio()
    return ratio >= 0.4


def _calls(tools: Sequence[str]) -> str:
    """``read_file ×2, search`` (in the order first called)."""
    counts = Counter(tools)
    return ", ".join(name if n == 1 else f"{name} ×{n}" for name, n in counts.items())


def no_edit(answer: str, fmt: str, old_texts: dict[str, str],
            tools: Sequence[str] = ()) -> NoEdit:
    """What ``answer`` (with no edit block) held instead, as one sentence."""
    block = "*** Begin Patch envelope" if fmt == "apply_patch" else "SEARCH/REPLACE block"
    if not answer.strip():
        if tools:
            return NoEdit("tools_only", f"the answer only called tools ({_calls(tools)}) and "
                          f"made no edit; no {block}")
        return NoEdit("empty", f"the answer was empty; no {block}")
    found = fences(answer)
    if not found:
        words = len(answer.split())
        after = f", after calling {_calls(tools)}" if tools else ""
        return NoEdit("prose", f"the answer was prose only ({words:,} word"
                      f"{'s' if words != 1 else ''}{after}); no {block}")
    biggest = max(found, key=lambda f: f.lines)
    lines = f"{biggest.lines:,} line{'s' if biggest.lines != 1 else ''}"
    if any(looks_whole(old, biggest.text) for old in old_texts.values()):
        return NoEdit("whole_file", f"the answer held a whole file in a fence ({lines}); "
                      f"no {block}")
    return NoEdit("snippet", f"the answer held code in a fence ({lines}) but no {block}")


def whole_file_text(answer: str, old: str,
                    accepts: Callable[[str], bool] = lambda text: True) -> str | None:
    """The new text of the one file sent, held whole in a fence and ``accepts``-ed; else None."""
    if old.count("\n") > WHOLE_FILE_MAX_LINES:
        return None
    candidates = [f for f in fences(answer)
                  if f.lines <= WHOLE_FILE_MAX_LINES and looks_whole(old, f.text)]
    if len(candidates) != 1:
        return None  # none, or several versions: which one is meant is a guess
    new = candidates[0].text
    if not old.endswith("\n") and new.endswith("\n"):
        new = new[:-1]
    return None if new == old or not accepts(new) else new

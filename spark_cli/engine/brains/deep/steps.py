"""Reading a deep task: cut into steps (lines, sentences, ``;``, ``then``), each recognised
by the deep brain's instructions, then the rules brain's; linear in the text's length."""

from __future__ import annotations

import re

from spark_cli.engine.brains.rules.instruction_parser import Instruction, parse_instruction
from spark_cli.record import record

MAX_STEPS = 8
"""Steps one task may hold; more are reported, not done."""
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d{1,3}[.)])\s+")
_SPLIT = re.compile(r";\s*|\.\s+(?=[A-Za-z`'\"])|,?(?<!\s)\s+(?:and\s+)?then\s+", re.I)
"""Step separators (``(?<!\\s)`` keeps a long run of spaces from being re-scanned)."""
_KINDS = r"(functions?|methods?|classes|class|definitions|defs|everything)"
_DOCS_ALL = re.compile(
    r"\b(?:add|write|generate)\s+(?:an?\s+|the\s+)?(?:missing\s+)?(?:docstrings?|doc\s*comments?|"
    r"documentation|docs?|jsdoc|javadoc|comments?)\s+(?:to|for|on|in)\s+"
    r"(?:(?:every|each|all)(?:\s+(?:of\s+)?the)?\s+(?:public\s+)?)" + _KINDS +
    r"(?:\s+and\s+(?:(?:every|each|all)\s+)?" + _KINDS + r")?", re.I)
_DOCUMENT_ALL = re.compile(
    r"\bdocument\s+(?:every|each|all)(?:\s+(?:of\s+)?the)?\s+" + _KINDS +
    r"(?:\s+and\s+(?:(?:every|each|all)\s+)?" + _KINDS + r")?", re.I)
_CALLERS = re.compile(r"\b(?:callers?|call\s+sites?|calls|usages?|uses)\b", re.I)
_PASSING = re.compile(r"\b(?:pass(?:ing)?|passes|with\s+the\s+value)\s+[`'\"]?"
                      r"([^\s`'\",;]{1,100})", re.I)


@record
class Step:
    """One step of a deep task, as written and as understood."""

    text: str
    """The step as the user wrote it."""
    instruction: Instruction | None
    """What it asks (None: not recognised)."""
    kinds: frozenset[str] = frozenset()
    """``docstrings_all``: ``function`` and/or ``class``."""
    callers: bool = False
    """``add_parameter``: the user asked for the call sites too."""
    value: str = ""
    """``add_parameter``: what the call sites pass (``pass 0``); "" = not said."""
    skip: str = ""
    """Why an unrecognised step is skipped, when there is more to say."""


def split_steps(text: str) -> list[str]:
    """The task's steps, in order (empty pieces and headings ending in ``:`` dropped)."""
    pieces: list[str] = []
    for line in text.split("\n"):
        pieces += _split_line(_BULLET.sub("", line))
    return [p for p in pieces if p and not p.endswith(":")]


def _split_line(line: str) -> list[str]:
    """The line cut at separators outside ``"…"`` and backtick quotes."""
    pieces, start, at, inside = [], 0, 0, {'"': False, "`": False}
    for found in _SPLIT.finditer(line):
        for char in line[at:found.start()]:
            if char in inside:
                inside[char] = not inside[char]
        at = found.start()
        if not any(inside.values()):
            pieces.append(line[start:found.start()])
            start = found.end()
    pieces.append(line[start:])
    return [p.strip().rstrip(".!") for p in pieces]


def _kinds(found: re.Match[str]) -> frozenset[str]:
    kinds = set()
    for word in filter(None, (found.group(1), found.group(2))):
        word = word.lower()
        if word.startswith(("class", "definition", "def", "every")):
            kinds.add("class")
        if not word.startswith("class"):
            kinds.add("function")
    return frozenset(kinds)


def parse_step(text: str) -> Step:
    """One step recognised: the deep brain's own instructions first, then the rules'."""
    found = _DOCS_ALL.search(text) or _DOCUMENT_ALL.search(text)
    if found:
        return Step(text, Instruction("docstring", name="*"), kinds=_kinds(found))
    instruction = parse_instruction(text)
    if instruction is not None and instruction.kind == "add_parameter":
        passing = _PASSING.search(text)
        return Step(text, instruction, callers=bool(_CALLERS.search(text)),
                    value=passing.group(1) if passing else "")
    return Step(text, instruction)


def parse_steps(text: str) -> list[Step]:
    """The task's steps (at most :data:`MAX_STEPS` + 1: the rest is one unrecognised step)."""
    pieces = split_steps(text)
    steps = [parse_step(p) for p in pieces[:MAX_STEPS]]
    if len(pieces) > MAX_STEPS:
        steps.append(Step(f"{len(pieces) - MAX_STEPS} more steps", None,
                          skip=f"one task holds at most {MAX_STEPS} steps"))
    return steps

"""Line normalisations for the locate ladder: Unicode folding (NFKC plus the quotes,
dashes and zero-width characters it leaves alone) and indentation units."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from math import gcd

from spark_cli.edits.lang.ends import common_prefix

_FOLD_TABLE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
    "\u2015": "-", "\u2212": "-", "\ufe58": "-",
    "\u2022": "*", "\u00b7": "*",
    "\u200b": "", "\u200c": "", "\u200d": "", "\u2060": "", "\ufeff": "",
    "\u00a0": " ", "\u202f": " ", "\u2007": " ",
})


def fold(line: str) -> str:
    """``line`` stripped, with look-alike Unicode punctuation and spaces made ASCII."""
    if line.isascii():
        return line.strip()
    return unicodedata.normalize("NFKC", line).translate(_FOLD_TABLE).strip()


def split_indent(line: str) -> tuple[str, str]:
    body = line.lstrip()
    return line[:len(line) - len(body)], body.rstrip()


def consistent_indent(pairs: Sequence[tuple[str, str]]) -> bool:
    """Whether every (search, file) indent pair differs the same way (prefix or unit)."""
    if not pairs:
        return False
    s0, f0 = pairs[0]
    if f0.endswith(s0) and all(f == f0[:len(f0) - len(s0)] + s for s, f in pairs):
        return True
    if s0.endswith(f0) and all(s == s0[:len(s0) - len(f0)] + f for s, f in pairs):
        return True
    return _unit_change(pairs)


def remove_prefix(line: str, prefix: str) -> str:
    """``line`` without the start it shares with ``prefix``."""
    return line[common_prefix(line, prefix, min(len(line), len(prefix))):]


def indent_unit(indents: Sequence[str]) -> str | None:
    """The repeated indentation unit of ``indents`` ("\t" or n spaces), or None."""
    used = [i for i in indents if i]
    if not used:
        return ""
    if all(set(i) == {"\t"} for i in used):
        return "\t"
    if all(set(i) == {" "} for i in used):
        size = 0
        for i in used:
            size = gcd(size, len(i))
        if size > 4 and size % 4 == 0:
            size = 4
        return " " * size
    return None


def dominant_unit(*runs: Iterable[str]) -> str | None:
    """The indentation unit most lines use: a tab when most indented lines start with one,
    else the commonest step between consecutive lines, else 4, 2 or 3 spaces when nine in
    ten fit; "" when nothing is indented, None when nothing fits."""
    tabs = spaces = 0
    widths: dict[int, int] = {}
    steps: dict[int, int] = {}
    for run in runs:
        previous = -1  # the first line's indentation is not a step: what is above it?
        for indent in run:
            if indent and indent[0] == "\t":
                tabs += 1
                continue
            if indent.strip(" "):
                continue  # mixed: no vote
            width = len(indent)
            if width:
                spaces += 1
                widths[width] = widths.get(width, 0) + 1
            if previous >= 0 and width - previous in (2, 3, 4, 8):  # not an alignment
                steps[width - previous] = steps.get(width - previous, 0) + 1
            previous = width
    if not tabs and not spaces:
        return ""
    if tabs > spaces:
        return "\t"
    if steps:
        return " " * max(steps, key=lambda step: (steps[step], step))
    for size in (4, 2, 3):
        if sum(n for width, n in widths.items() if width % size == 0) * 10 >= spaces * 9:
            return " " * size
    return None


def _unit_change(pairs: Sequence[tuple[str, str]]) -> bool:
    s_unit, f_unit = indent_unit([s for s, _ in pairs]), indent_unit([f for _, f in pairs])
    if not s_unit or not f_unit or s_unit == f_unit:
        return False
    shifts = {len(f) // len(f_unit) - len(s) // len(s_unit) for s, f in pairs}
    return len(shifts) == 1 and not any(len(s) % len(s_unit) or len(f) % len(f_unit)
                                        for s, f in pairs)

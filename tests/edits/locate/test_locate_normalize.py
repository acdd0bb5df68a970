"""Line normalisations used by the ladder: Unicode folding and re-indentation."""

from __future__ import annotations

import pytest

from spark_cli.edits.locate.elision import is_elision, split_elided
from spark_cli.edits.locate.normalize import (
    consistent_indent,
    fold,
    indent_unit,
    split_indent,
)


@pytest.mark.parametrize(("line", "folded"), [
    ("  plain ascii  ", "plain ascii"),
    ("“quoted” ‘single’", "\"quoted\" 'single'"),
    ("a – b — c − d", "a - b - c - d"),
    ("wait…", "wait..."),
    ("x\u00a0=\u00a01", "x = 1"),
    ("ｆｕｌｌ（１）", "full(1)"),
    ("zero\u200bwidth", "zerowidth"),
    ("ﬁle", "file"),
])
def test_fold(line: str, folded: str) -> None:
    assert fold(line) == folded


def test_split_indent() -> None:
    assert split_indent("\t  x = 1  ") == ("\t  ", "x = 1")
    assert split_indent("   ") == ("   ", "")


def test_consistent_indent_added_and_removed_prefix() -> None:
    assert consistent_indent([("", "    "), ("  ", "      ")])
    assert consistent_indent([("        ", "    "), ("          ", "      ")])


def test_consistent_indent_unit_change_spaces_to_tabs() -> None:
    assert consistent_indent([("    ", "\t"), ("        ", "\t\t")])
    assert not consistent_indent([("    ", "\t"), ("        ", "\t\t\t")])
    assert not consistent_indent([("   ", "\t"), ("        ", "\t\t")])


def test_consistent_indent_refuses_inconsistent_offsets() -> None:
    assert not consistent_indent([("", "    "), ("    ", "  ")])
    assert not consistent_indent([])


def test_indent_unit() -> None:
    assert indent_unit(["    ", "        ", ""]) == "    "
    assert indent_unit(["  ", "    ", "      "]) == "  "
    assert indent_unit(["\t", "\t\t"]) == "\t"
    assert indent_unit(["\t", "    "]) is None
    assert indent_unit(["", ""]) == ""


@pytest.mark.parametrize(("line", "elided"), [
    ("...", True), ("    # ...", True), ("// ... existing code ...", True),
    ("# rest of the function unchanged", True), ("/* ... */", True), ("<!-- ... -->", True),
    ("x = ...", False), ("foo(...)", False), ("# a real comment", False), ("", False),
])
def test_is_elision(line: str, elided: bool) -> None:
    assert is_elision(line) is elided


def test_split_elided_needs_the_same_placeholders_on_both_sides() -> None:
    assert split_elided(["a", "# ...", "b"], ["A", "# ...", "b"]) == [(["a"], ["A"]),
                                                                     (["b"], ["b"])]
    assert split_elided(["a", "# ...", "b"], ["A", "b"]) is None
    assert split_elided(["# ...", "b"], ["# ...", "B"]) == [(["b"], ["B"])]  # edge: dropped
    assert split_elided(["# ...", "b"], ["B"]) is None
    assert split_elided(["a", "b"], ["a", "b"]) is None

"""Minimal unified diffs: same grouping as difflib, and patching with them gives the new text."""

from __future__ import annotations

import difflib

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.apply.diffs import _groups, unified_diff


def test_small_change_has_context_and_header() -> None:
    old = "".join(f"{n}\n" for n in range(20))
    new = old.replace("10\n", "ten\n")
    assert unified_diff("x.py", old, new) == (
        "--- a/x.py\n+++ b/x.py\n@@ -8,7 +8,7 @@\n 7\n 8\n 9\n-10\n+ten\n 11\n 12\n 13\n"
    )


def test_created_deleted_and_no_final_newline() -> None:
    assert unified_diff("n.txt", None, "a\n") == "--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+a\n"
    assert unified_diff("n.txt", "a\n", None).startswith("--- a/n.txt\n+++ /dev/null\n")
    diff = unified_diff("n.txt", "a\nb", "a\nc")
    assert diff.endswith("-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n")


def test_equal_is_empty_and_rename_has_header_only() -> None:
    assert unified_diff("x", "a\n", "a\n") == ""
    assert unified_diff("new", "a\n", "a\n" + "", old_path="old") == ""


_lines = st.lists(st.sampled_from("abcdx"), max_size=30)


@settings(max_examples=300, deadline=None)
@given(_lines, _lines, st.integers(1, 4))
def test_groups_match_difflib(a, b, context) -> None:
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)

    def strip(groups):
        return [[c for c in g if not (c[0] == "equal" and c[1] == c[2])] for g in groups]

    expected = strip(list(g) for g in matcher.get_grouped_opcodes(context)) if a != b else []
    assert strip(_groups(matcher.get_opcodes(), context)) == expected

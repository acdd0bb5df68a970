"""Minimal unified diffs: exact text, and patching the old text with one gives the new text."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.apply.diffs import unified_diff


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



def _patched(old: str, diff: str) -> str:
    """``old`` with every hunk of ``diff`` applied, each context and removed line checked."""
    lines, out, at = old.splitlines(keepends=True), [], 0
    heads = re.findall(r"^@@ -(\d+)(?:,(\d+))? ", diff, re.M)
    for (start, length), body in zip(heads, re.split(r"^@@ .*\n", diff, flags=re.M)[1:],
                                     strict=True):
        first = int(start) - (0 if length == "0" else 1)
        out += lines[at:first]
        at, kind = first, ""
        for line in body.splitlines(keepends=True):
            if line.startswith("\\"):  # no newline at end of file: for the line above
                if kind in " +":
                    out[-1] = out[-1].removesuffix("\n")
                continue
            kind = line[0]
            if kind in " -":
                assert lines[at].removesuffix("\n") == line[1:].removesuffix("\n")
                at += 1
            if kind in " +":
                out.append(line[1:])
    return "".join(out + lines[at:])


_text = st.builds(lambda lines, end: "\n".join(lines) + end, _lines, st.sampled_from(["", "\n"]))


@settings(max_examples=300, deadline=None)
@given(_text, _text, st.integers(0, 4))
def test_patching_the_old_text_gives_the_new(old: str, new: str, context: int) -> None:
    assert _patched(old, unified_diff("f", old, new, context=context)) == new

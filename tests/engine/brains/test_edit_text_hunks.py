"""Minimal hunks: only changed lines, widened until unique, never anchored on blanks alone."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.engine.brains.code.edit_text import FileChange, hunks_for


def _apply(text: str, change: FileChange) -> str:
    for hunk in hunks_for(change):
        assert hunk.search, "an empty search would create/append"
        assert any(line.strip() for line in hunk.search.splitlines())
        assert text.count(hunk.search) == 1, hunk
        text = text.replace(hunk.search, hunk.replace, 1)  # these cases are substring-unique
    return text


def test_one_changed_line_is_the_whole_hunk() -> None:
    old = "a = 1\nb = 2\nc = 3\n"
    [hunk] = hunks_for(FileChange("f", old, "a = 1\nb = 20\nc = 3\n"))
    assert (hunk.search, hunk.replace) == ("b = 2\n", "b = 20\n")


def test_repeated_line_gets_context() -> None:
    old = "x\nsame\ny\nsame\n"
    [hunk] = hunks_for(FileChange("f", old, "x\nsame\ny\nnew\n"))
    assert (hunk.search, hunk.replace) == ("y\nsame\n", "y\nnew\n")


def test_insertion_carries_a_context_line() -> None:
    [hunk] = hunks_for(FileChange("f", "a\nb\n", "a\nnew\nb\n"))
    assert (hunk.search, hunk.replace) == ("a\n", "a\nnew\n")
    [hunk] = hunks_for(FileChange("f", "a\nb\n", "new\na\nb\n"))
    assert (hunk.search, hunk.replace) == ("a\n", "new\na\n")


def test_later_hunk_unique_after_earlier_ones_applied() -> None:
    old = "foo\nbar\nfoo2\n"
    new = "bar\nbar\nfoo2x\n"
    assert _apply(old, FileChange("f", old, new)) == new


LINES = st.sampled_from(["a\n", "b\n", "\n", "x = 1\n", "return\n"])


@settings(max_examples=150, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=12), st.lists(LINES, min_size=1, max_size=12))
def test_hunks_always_rebuild_the_new_text(old_lines, new_lines) -> None:
    old, new = "".join(old_lines), "".join(new_lines)
    if not any(line.strip() for line in old_lines):
        return  # a file of blank lines has no anchor at all
    lines = list(old_lines)
    for hunk in hunks_for(FileChange("f", old, new)):
        search = hunk.search.splitlines(keepends=True)
        starts = [i for i in range(len(lines) - len(search) + 1)
                  if lines[i:i + len(search)] == search]
        assert len(starts) == 1, (hunk, lines)  # whole lines, exactly one place
        at = starts[0]
        lines[at:at + len(search)] = hunk.replace.splitlines(keepends=True)
    assert "".join(lines) == new

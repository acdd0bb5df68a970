"""Rendering edits as text: exact output, and rendered text parses back to the same edits."""

from __future__ import annotations

from diff_envelope import diff_to_apply_patch
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import FileEdit, Hunk


def parse_edits(text: str) -> list[FileEdit]:
    parser = EditStreamParser()
    items = parser.feed(text) + parser.close()
    return [i for i in items if isinstance(i, FileEdit)]


def apply_hunks(old: str, edit: FileEdit) -> str:
    """A tiny exact, line-based applier (the real one lives in apply.py): each hunk's lines
    must occur exactly once after the previous hunk (at the end for `at_eof`)."""
    lines = old.splitlines(keepends=True)
    cursor = 0
    for hunk in edit.hunks:
        find = hunk.search.splitlines(keepends=True)
        repl = hunk.replace.splitlines(keepends=True)
        if not find:
            lines.extend(repl)
            continue
        spots = [i for i in range(cursor, len(lines) - len(find) + 1)
                 if lines[i : i + len(find)] == find
                 and (not hunk.at_eof or i + len(find) == len(lines))]
        assert len(spots) == 1, (hunk, spots)
        lines[spots[0] : spots[0] + len(find)] = repl
        cursor = spots[0] + len(repl)
    return "".join(lines)


def test_render_search_replace_plain_fence() -> None:
    assert render_search_replace("a.py", "x\n", "y\n") == (
        "a.py\n```\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n")


def test_render_search_replace_lang_fence_and_no_fence() -> None:
    assert render_search_replace("a.py", "x", "", fence="python") == (
        "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\n>>>>>>> REPLACE\n```\n")
    assert render_search_replace("a.py", "", "y\n", fence=None) == (
        "a.py\n<<<<<<< SEARCH\n=======\ny\n>>>>>>> REPLACE\n")


def test_render_search_replace_uses_a_longer_fence_than_the_content() -> None:
    text = render_search_replace("README.md", "```\ncode\n```\n", "x\n", fence="")
    assert text.startswith("README.md\n````\n") and text.endswith("````\n")
    (edit,) = parse_edits(text)
    assert edit.hunks[0].search == "```\ncode\n```\n"


def test_render_apply_patch_every_kind() -> None:
    edits = [
        FileEdit("add", "new.txt", (Hunk("", "a\n\nb\n"),), "apply_patch"),
        FileEdit("delete", "old.txt", (), "apply_patch"),
        FileEdit("update", "m.py", (Hunk("a\nb\n\nc\n", "a\nB\n\nc\n", ("class A", "def f")),
                                    Hunk("z\n", "", at_eof=True)), "apply_patch", "n.py"),
    ]
    text = render_apply_patch(edits)
    assert text == (
        "*** Begin Patch\n*** Add File: new.txt\n+a\n+\n+b\n*** Delete File: old.txt\n"
        "*** Update File: m.py\n*** Move to: n.py\n@@ class A\n@@ def f\n a\n-b\n+B\n \n c\n"
        "@@\n-z\n*** End of File\n*** End Patch\n")
    parsed = parse_edits(text)
    assert [(e.kind, e.path, e.move_to) for e in parsed] == [(e.kind, e.path, e.move_to)
                                                              for e in edits]
    assert [(h.search, h.replace, h.anchors, h.at_eof) for h in parsed[2].hunks] == [
        (h.search, h.replace, h.anchors, h.at_eof) for h in edits[2].hunks]


def test_diff_to_apply_patch_small_context() -> None:
    old = "".join(f"l{i}\n" for i in range(12))
    new = old.replace("l2\n", "L2\n").replace("l10\n", "L10\n")
    text = diff_to_apply_patch("a.txt", old, new, context=1)
    assert text == ("*** Begin Patch\n*** Update File: a.txt\n@@\n l1\n-l2\n+L2\n l3\n"
                    "@@\n l9\n-l10\n+L10\n l11\n*** End of File\n*** End Patch\n")


def test_diff_widens_context_until_the_hunk_is_unique() -> None:
    old = "x\nx\nx\nx\nend\n"
    new = "x\nx\ny\nx\nend\n"
    (edit,) = parse_edits(diff_to_apply_patch("a.txt", old, new, context=0))
    assert apply_hunks(old, edit) == new


def test_diff_of_identical_texts_has_no_hunks() -> None:
    assert diff_to_apply_patch("a", "x\n", "x\n") == "*** Begin Patch\n*** Update File: a\n" \
                                                      "*** End Patch\n"


lines = st.lists(st.sampled_from(["a", "b", "c", "", "    d", "}", "x = 1"]), max_size=25)


@settings(max_examples=150, deadline=None)
@given(lines, lines, st.integers(0, 3))
def test_diff_round_trips_through_the_parser(old: list[str], new: list[str], ctx: int) -> None:
    a, b = "".join(x + "\n" for x in old), "".join(x + "\n" for x in new)
    edits = parse_edits(diff_to_apply_patch("f.txt", a, b, context=ctx))
    if a == b:
        assert edits == []  # an update with no hunks is rejected, never applied
        return
    (edit,) = edits
    assert apply_hunks(a, edit) == b


def test_render_search_replace_markers_avoid_the_texts_divider_width() -> None:
    text = render_search_replace("doc.rst", "Title\n=======\n", "Title\n=========\n", fence=None)
    assert text.splitlines()[1] == "<<<<<<<< SEARCH" and "\n========\n" in text

"""Deep changes as values: hunks, selection, per-hunk review and the three-way merge."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.lang.ends import lines_of
from spark_cli.session.deep.change import Selection, file_change, merge_file, review_file

BASE = "".join(f"line {n}\n" for n in range(1, 31))


def _edit(text: str, **lines: str) -> str:
    out = lines_of(text)
    for key, new in lines.items():
        out[int(key[1:]) - 1] = new
    return "".join(out)


def test_hunks_are_the_unified_diff_groups() -> None:
    theirs = _edit(BASE, n3="three\n", n25="twenty-five\n")
    change = file_change("a.txt", BASE, theirs)
    assert change is not None and change.kind == "modify"
    assert [h.index for h in change.hunks] == [1, 2]
    first, second = change.hunks
    assert first.diff == ("@@ -1,6 +1,6 @@\n line 1\n line 2\n-line 3\n+three\n line 4\n"
                          " line 5\n line 6\n")
    assert first.edits == ((2, 3, ("three\n",)),)
    assert second.edits == ((24, 25, ("twenty-five\n",)),)
    assert change.diff.startswith("--- a/a.txt\n+++ b/a.txt\n@@ -1,6")
    assert "".join(change.with_hunks({2})) == _edit(BASE, n25="twenty-five\n")
    assert "".join(change.with_hunks({1, 2})) == theirs
    assert file_change("a.txt", BASE, BASE) is None


def test_create_and_delete_are_one_hunk_and_no_final_newline_is_shown() -> None:
    created = file_change("new.py", None, "x = 1")
    assert created is not None and created.kind == "create"
    assert created.diff == ("--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
                            "\\ No newline at end of file\n")
    deleted = file_change("old.py", "y\n", None)
    assert deleted is not None and deleted.kind == "delete" and len(deleted.hunks) == 1


def test_review_clean_conflict_present() -> None:
    change = file_change("a.txt", BASE, _edit(BASE, n3="three\n", n25="twenty-five\n"))
    assert change is not None
    ours = _edit(BASE, n4="user four\n", n12="user twelve\n")  # line 4 abuts hunk 1's line 3
    review = review_file(change, ours)
    assert [s.state for s in review] == ["conflict", "clean"]
    assert review[0].detail == ("working-tree lines 4 changed since the snapshot "
                                "(the hunk touches base lines 3-4)")
    review = review_file(change, _edit(BASE, n3=""))  # line 3 deleted
    assert review[0].detail == ("base lines 3 were deleted in the working tree since the "
                                "snapshot (the hunk touches base lines 3)")
    ours = _edit(BASE, n25="twenty-five\n")  # the user made the same change
    assert [s.state for s in review_file(change, ours)] == ["clean", "present"]
    assert [s.state for s in review_file(change, None)] == ["conflict", "conflict"]


def test_merge_applies_chosen_clean_hunks_and_keeps_the_users_lines() -> None:
    change = file_change("a.txt", BASE, _edit(BASE, n3="three\n", n25="twenty-five\n"))
    assert change is not None
    ours = _edit(BASE, n12="user twelve\n")
    both = merge_file(change, ours, [1, 2])
    assert both.write and both.applied == (1, 2) and both.refused == ()
    assert both.text == _edit(BASE, n3="three\n", n12="user twelve\n", n25="twenty-five\n")
    only_two = merge_file(change, ours, [2])
    assert only_two.text == _edit(BASE, n12="user twelve\n", n25="twenty-five\n")
    conflicted = merge_file(change, _edit(BASE, n3="user three\n"), [1, 2])
    assert conflicted.applied == (2,) and [s.index for s in conflicted.refused] == [1]
    assert conflicted.text == _edit(BASE, n3="user three\n", n25="twenty-five\n")
    nothing = merge_file(change, _edit(BASE, n3="three\n", n25="twenty-five\n"), [1, 2])
    assert not nothing.write and nothing.present == (1, 2)


def test_merge_follows_lines_the_user_inserted_above() -> None:
    change = file_change("a.txt", BASE, _edit(BASE, n20="twenty\n"))
    assert change is not None
    ours = "header 1\nheader 2\n" + BASE
    merged = merge_file(change, ours, [1])
    assert merged.text == "header 1\nheader 2\n" + _edit(BASE, n20="twenty\n")


def test_create_and_delete_against_the_working_tree() -> None:
    created = file_change("n.py", None, "x = 1\n")
    assert created is not None
    assert [s.state for s in review_file(created, None)] == ["clean"]
    assert [s.state for s in review_file(created, "x = 1\n")] == ["present"]
    assert [s.state for s in review_file(created, "other\n")] == ["conflict"]
    assert merge_file(created, None, [1]).text == "x = 1\n"
    deleted = file_change("o.py", "y\n", None)
    assert deleted is not None
    assert [s.state for s in review_file(deleted, "y\n")] == ["clean"]
    assert [s.state for s in review_file(deleted, "y changed\n")] == ["conflict"]
    gone = merge_file(deleted, "y\n", [1])
    assert gone.write and gone.text is None


def test_selection() -> None:
    assert Selection().picks("a", 3)
    assert Selection.of_files("a").picks("a", 1) and not Selection.of_files("a").picks("b", 1)
    pick = Selection.of_hunks(("a", 2))
    assert pick.picks("a", 2) and not pick.picks("a", 1)


_LINES = st.lists(st.sampled_from(["a\n", "b\n", "c\n", "d\n", "e"]), max_size=30)


@settings(max_examples=150, deadline=None)
@given(base=_LINES, theirs=_LINES, ours=_LINES)
def test_merge_properties(base: list[str], theirs: list[str], ours: list[str]) -> None:
    b, t, o = "".join(base), "".join(theirs), "".join(ours)
    change = file_change("f", b, t)
    if change is None:
        return
    every = [h.index for h in change.hunks]
    assert "".join(change.with_hunks(set(every))) == t
    assert merge_file(change, b, every).text == t  # nothing changed meanwhile: theirs
    assert not merge_file(change, t, every).write  # already there: nothing to write
    merged = merge_file(change, o, every)
    assert set(merged.applied) | set(merged.present) | {s.index for s in merged.refused} == \
        set(every)
    if not merged.applied:
        assert merged.text == o  # nothing applied: the working tree as it was

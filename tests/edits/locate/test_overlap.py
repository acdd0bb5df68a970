"""Hunks that share context lines: accepted when the shared lines are unchanged in both."""

from __future__ import annotations

import difflib
import tempfile
from pathlib import Path

from apply_harness import apply_one
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.locate.placement import disjoint_cores, trim
from spark_cli.edits.model.blocks import FileEdit, Hunk

TEXT = "a = 1\nb = 2\nc = 3\nd = 4\ne = 5\n"


def test_trim_keeps_only_the_changed_lines() -> None:
    start = 0
    end = TEXT.index("c = 3") + len("c = 3")
    core = trim(TEXT, (start, end, "a = 1\nb = 20\nc = 3"))
    assert TEXT[core[0]:core[1]] == "b = 2\n" and core[2] == "b = 20\n"


def test_trim_of_a_pure_insertion_is_empty() -> None:
    end = TEXT.index("c = 3") + len("c = 3")
    start = TEXT.index("b = 2")
    core = trim(TEXT, (start, end, "b = 2\nx\nc = 3"))
    assert core[0] == core[1] == TEXT.index("c = 3") and core[2] == "x\n"


def _span(first: str, last: str, replacement: str) -> tuple[int, int, str]:
    return TEXT.index(first), TEXT.index(last) + len(last), replacement


def test_shared_unchanged_context_is_fine() -> None:
    one = _span("a = 1", "c = 3", "a = 1\nb = 20\nc = 3")
    two = _span("c = 3", "e = 5", "c = 3\nd = 40\ne = 5")
    assert disjoint_cores(TEXT, one, two) is not None


def test_a_shared_line_that_one_hunk_changes_is_an_overlap() -> None:
    one = _span("a = 1", "c = 3", "a = 1\nb = 20\nc = 3")
    two = _span("c = 3", "e = 5", "c = 30\nd = 40\ne = 5")
    assert disjoint_cores(TEXT, one, two) is None


def test_an_insertion_between_shared_lines_is_an_overlap() -> None:
    one = _span("b = 2", "d = 4", "b = 2\nc = 3\nx\nd = 4")
    two = _span("c = 3", "e = 5", "c = 3\nd = 4\ne = 50")
    assert disjoint_cores(TEXT, one, two) is None


def _hunks(old: list[str], new: list[str], context: int) -> list[tuple[str, str]]:
    """One hunk per change, each with up to ``context`` unchanged lines around it,
    so that neighbouring hunks share context lines (as models write them)."""
    ops = difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes()
    hunks = []
    for k, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal":
            continue
        before = (min(context, ops[k - 1][2] - ops[k - 1][1])
                  if k and ops[k - 1][0] == "equal" else 0)
        after = (min(context, ops[k + 1][2] - ops[k + 1][1])
                 if k + 1 < len(ops) and ops[k + 1][0] == "equal" else 0)
        head, tail = old[i1 - before:i1], old[i2:i2 + after]
        search = head + old[i1:i2] + tail
        if not search:
            continue
        hunks.append(("".join(x + "\n" for x in search),
                      "".join(x + "\n" for x in head + new[j1:j2] + tail)))
    return hunks


@settings(max_examples=100, deadline=None)
@given(st.lists(st.booleans(), min_size=2, max_size=25), st.integers(1, 3), st.data())
def test_hunks_with_shared_context_rebuild_the_new_text(keep: list[bool], context: int,
                                                        data: st.DataObject) -> None:
    old = [f"line{i} = {i}" for i in range(len(keep))]
    new = [line if k else line + "  # changed" for line, k in zip(old, keep, strict=True)]
    extra = data.draw(st.integers(0, len(new)))
    new.insert(extra, "inserted = 1")
    hunks = _hunks(old, new, context)
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "f.py").write_text("\n".join(old) + "\n")
        edit = FileEdit("update", "f.py", tuple(Hunk(s, r) for s, r in hunks), "apply_patch")
        out = apply_one(edit, root)
        assert out.ok, out.message
        assert (root / "f.py").read_text() == "\n".join(new) + "\n"

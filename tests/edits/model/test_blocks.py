"""The parsed-edit value types: frozen, slotted, with the documented defaults."""

from __future__ import annotations

import dataclasses

import pytest

from spark_cli.edits.model.blocks import BlockRejected, FileEdit, Hunk, ProseDelta


def test_defaults() -> None:
    hunk = Hunk("a\n", "b\n")
    assert (hunk.anchors, hunk.at_eof, hunk.line) == ((), False, 0)
    edit = FileEdit("update", "a.py", (hunk,), "search_replace")
    assert (edit.move_to, edit.line) == (None, 0)


@pytest.mark.parametrize("value", [
    Hunk("a", "b"), FileEdit("delete", "a", (), "apply_patch"), BlockRejected("m", 1, None, ""),
    ProseDelta("x"),
])
def test_values_are_frozen_and_slotted(value: object) -> None:
    name = dataclasses.fields(value)[0].name  # type: ignore[arg-type]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, "changed")
    assert not hasattr(value, "__dict__")


def test_values_compare_and_hash_by_value() -> None:
    a = FileEdit("update", "a.py", (Hunk("x\n", "y\n", ("def f():",)),), "apply_patch")
    b = FileEdit("update", "a.py", (Hunk("x\n", "y\n", ("def f():",)),), "apply_patch")
    assert a == b and hash(a) == hash(b)

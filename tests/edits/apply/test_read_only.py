"""Files without a write bit are protected: every write path of the applier refuses them
(even as root, who could write them) unless the user forces it."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.edits.model.outcome import EditApplied, RefusedEdit

UNDO = ".spark/undo"  # the journal's folder in these tests

UPDATE = FileEdit("update", "app.py", (Hunk("x = 1\n", "x = 2\n"),), "search_replace")
APPEND = FileEdit("update", "app.py", (Hunk("", "y = 3\n"),), "search_replace")
DELETE = FileEdit("delete", "app.py", (), "apply_patch")
MOVE = FileEdit("update", "app.py", (), "apply_patch", move_to="lib/app.py")
MOVE_AND_EDIT = FileEdit("update", "app.py", (Hunk("x = 1\n", "x = 2\n"),), "apply_patch",
                         move_to="lib/app.py")


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*")
            if p.is_file() and ".spark" not in p.parts}


@pytest.mark.parametrize("edit", [UPDATE, APPEND, DELETE, MOVE, MOVE_AND_EDIT],
                         ids=["update", "append", "delete", "move", "move_and_edit"])
@pytest.mark.parametrize("dry_run", [False, True], ids=["write", "check"])
def test_every_write_path_refuses_a_read_only_file(tmp_path: Path, edit: FileEdit,
                                                    dry_run: bool) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "app.py").chmod(0o444)
    before = _tree(tmp_path)
    outcome = Applier(tmp_path, undo_dir=tmp_path / UNDO, dry_run=dry_run).apply(edit)
    assert isinstance(outcome, RefusedEdit)
    assert outcome.reason == "read_only"
    assert "app.py is read-only (mode 0444)" in outcome.message
    assert _tree(tmp_path) == before
    assert (tmp_path / "app.py").stat().st_mode & 0o777 == 0o444


@pytest.mark.parametrize("mode", [0o400, 0o555, 0o000])
def test_any_mode_without_a_write_bit_is_read_only(tmp_path: Path, mode: int) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "app.py").chmod(mode)
    try:
        outcome = Applier(tmp_path, undo_dir=tmp_path / UNDO).apply(UPDATE)
    finally:
        (tmp_path / "app.py").chmod(0o644)
    assert isinstance(outcome, RefusedEdit) and outcome.reason == "read_only"
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def test_a_write_bit_for_anyone_is_enough(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "app.py").chmod(0o464)  # group may write: not marked read-only
    assert isinstance(Applier(tmp_path, undo_dir=tmp_path / UNDO).apply(UPDATE), EditApplied)


def test_forced_writes_keep_the_mode_and_undo(tmp_path: Path) -> None:
    from spark_cli.edits.disk.journal import undo

    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "app.py").chmod(0o444)
    applier = Applier(tmp_path, undo_dir=tmp_path / UNDO, write_read_only=True)
    applier.begin_batch("forced")
    assert isinstance(applier.apply(UPDATE), EditApplied)
    applier.end_batch()
    assert (tmp_path / "app.py").read_text() == "x = 2\n"
    assert (tmp_path / "app.py").stat().st_mode & 0o777 == 0o444
    undo(tmp_path, tmp_path / UNDO)
    assert (tmp_path / "app.py").read_text() == "x = 1\n"


def test_a_read_only_file_that_the_edit_leaves_equal_is_not_refused(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    (tmp_path / "app.py").chmod(0o444)
    same = FileEdit("update", "app.py", (Hunk("x = 1\n", "x = 1\n"),), "search_replace")
    assert isinstance(Applier(tmp_path, undo_dir=tmp_path / UNDO).apply(same), EditApplied)

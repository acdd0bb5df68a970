"""The undo journal: record, list, undo, refuse when changed, force."""

from __future__ import annotations

import pytest

from spark_cli.edits.disk.atomic import remove_file, write_atomic
from spark_cli.edits.disk.journal import Journal, UndoRefused, history, undo

UNDO = ".spark/undo"  # the journal's folder in these tests


def _change(journal: Journal, root, rel: str, after: bytes | None, mode: int = 0o644) -> None:
    path = root / rel
    before = path.read_bytes() if path.exists() else None
    before_mode = path.stat().st_mode & 0o777 if path.exists() else None
    journal.record(rel, before, before_mode, after, None if after is None else mode)
    if after is None:
        remove_file(path)
    else:
        write_atomic(path, after, mode)


def test_undo_restores_modified_created_deleted(tmp_path) -> None:
    (tmp_path / "a.txt").write_bytes(b"a1\r\n")
    (tmp_path / "gone.txt").write_bytes(b"bye")
    (tmp_path / "gone.txt").chmod(0o755)
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin("turn 1")
    _change(journal, tmp_path, "a.txt", b"a2\r\n")
    _change(journal, tmp_path, "a.txt", b"a3\r\n")  # touched twice: first before-state kept
    _change(journal, tmp_path, "new/b.txt", b"b")
    _change(journal, tmp_path, "gone.txt", None)
    batch = journal.end()
    assert batch is not None and batch.summary == "1 created, 1 deleted, 1 modified"
    assert [b.id for b in history(tmp_path / UNDO)] == [batch.id]

    result = undo(tmp_path, tmp_path / UNDO)
    assert set(result.restored) == {"a.txt", "new/b.txt", "gone.txt"}
    assert (tmp_path / "a.txt").read_bytes() == b"a1\r\n"
    assert not (tmp_path / "new").exists()
    assert (tmp_path / "gone.txt").read_bytes() == b"bye"
    assert (tmp_path / "gone.txt").stat().st_mode & 0o777 == 0o755
    assert history(tmp_path / UNDO) == []
    with pytest.raises(UndoRefused, match="nothing to undo"):
        undo(tmp_path, tmp_path / UNDO)


def test_undo_refuses_when_changed_unless_forced(tmp_path) -> None:
    (tmp_path / "a.txt").write_bytes(b"1")
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    _change(journal, tmp_path, "a.txt", b"2")
    journal.end()
    (tmp_path / "a.txt").write_bytes(b"user")
    with pytest.raises(UndoRefused) as info:
        undo(tmp_path, tmp_path / UNDO)
    assert info.value.changed == ("a.txt",)
    assert (tmp_path / "a.txt").read_bytes() == b"user"
    undo(tmp_path, tmp_path / UNDO, force=True)
    assert (tmp_path / "a.txt").read_bytes() == b"1"


def test_batches_stack_newest_first(tmp_path) -> None:
    (tmp_path / "a.txt").write_bytes(b"0")
    journal = Journal(tmp_path, tmp_path / UNDO)
    for n in (1, 2):
        journal.begin(f"turn {n}")
        _change(journal, tmp_path, "a.txt", str(n).encode())
        journal.end()
    assert [b.label for b in history(tmp_path / UNDO)] == ["turn 2", "turn 1"]
    undo(tmp_path, tmp_path / UNDO)
    assert (tmp_path / "a.txt").read_bytes() == b"1"
    undo(tmp_path, tmp_path / UNDO)
    assert (tmp_path / "a.txt").read_bytes() == b"0"


def test_empty_batch_leaves_nothing(tmp_path) -> None:
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    assert journal.end() is None
    assert history(tmp_path / UNDO) == []


def test_forget_after_failed_write(tmp_path) -> None:
    (tmp_path / "a.txt").write_bytes(b"1")
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    journal.record("a.txt", b"1", 0o644, b"2", 0o644)
    journal.forget("a.txt", b"1", 0o644)
    assert journal.end() is None


def test_unfinished_batch_is_still_undoable(tmp_path) -> None:
    """A crash after a write but before end(): the manifest on disk already covers it."""
    (tmp_path / "a.txt").write_bytes(b"1")
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    _change(journal, tmp_path, "a.txt", b"2")
    # no end(): simulate the process dying here
    undo(tmp_path, tmp_path / UNDO)
    assert (tmp_path / "a.txt").read_bytes() == b"1"


def test_file_never_written_before_a_crash_is_skipped(tmp_path) -> None:
    """Recorded, then the process died before the write: undo does not call it 'changed'."""
    (tmp_path / "a.txt").write_bytes(b"1")
    (tmp_path / "b.txt").write_bytes(b"x")
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    _change(journal, tmp_path, "a.txt", b"2")
    journal.record("b.txt", b"x", 0o644, b"y", 0o644)  # ... and no write
    result = undo(tmp_path, tmp_path / UNDO)
    assert (tmp_path / "a.txt").read_bytes() == b"1"
    assert (tmp_path / "b.txt").read_bytes() == b"x"
    assert "a.txt" in result.restored


def test_directory_in_place_of_a_file_is_a_change(tmp_path) -> None:
    journal = Journal(tmp_path, tmp_path / UNDO)
    journal.begin()
    _change(journal, tmp_path, "a.txt", b"new")
    journal.end()
    (tmp_path / "a.txt").unlink()
    (tmp_path / "a.txt").mkdir()
    with pytest.raises(UndoRefused, match=r"a\.txt"):
        undo(tmp_path, tmp_path / UNDO)
    # a folder is never replaced by a file
    assert undo(tmp_path, tmp_path / UNDO, force=True).restored == ()
    assert (tmp_path / "a.txt").is_dir()

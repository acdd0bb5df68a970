"""`/undo` and `/diff` as plain data, over a real undo journal."""

from __future__ import annotations

import shutil
from pathlib import Path

from spark_cli.edits.disk.atomic import remove_file, write_atomic
from spark_cli.edits.disk.journal import Journal, history
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.workspace.changes import (
    RefusedFile,
    latest_batch_id,
    session_diff,
    undo_last_batch,
)


def _batch(root: Path, label: str, changes: dict[str, bytes | None]) -> str:
    """One answer's batch: record each change in the journal, then write it (as apply does)."""
    journal = Journal(root, undo_dir(root))
    batch_id = journal.begin(label)
    for rel, after in changes.items():
        path = root / rel
        before = path.read_bytes() if path.exists() else None
        mode = path.stat().st_mode & 0o777 if path.exists() else None
        journal.record(rel, before, mode, after, None if after is None else 0o644)
        if after is None:
            remove_file(path)
        else:
            write_atomic(path, after, 0o644)
    journal.end()
    return batch_id


def test_nothing_to_undo(tmp_path: Path) -> None:
    report = undo_last_batch(tmp_path)
    assert report.status == "nothing" and report.status != "undone"
    assert report.message == "nothing to undo" and report.restored == ()


def test_undo_restores_the_last_batch_only(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"a = 1\n")
    (tmp_path / "old.py").write_bytes(b"old\n")
    _batch(tmp_path, "first", {"a.py": b"a = 2\n"})
    _batch(tmp_path, "rename a", {"a.py": b"a = 3\n", "pkg/new.py": b"new\n",
                                           "old.py": None})
    report = undo_last_batch(tmp_path)
    assert report.status == "undone" and report.message.startswith("undid rename a: ")
    assert set(report.restored) == {"a.py", "pkg/new.py", "old.py"}
    assert report.message.startswith("undid rename a: restored ")
    assert (tmp_path / "a.py").read_bytes() == b"a = 2\n"
    assert not (tmp_path / "pkg").exists() and (tmp_path / "old.py").read_bytes() == b"old\n"
    assert undo_last_batch(tmp_path).status == "undone"  # then the first batch
    assert (tmp_path / "a.py").read_bytes() == b"a = 1\n"
    assert undo_last_batch(tmp_path).status == "nothing"


def test_files_changed_since_are_refused_with_their_reasons(tmp_path: Path) -> None:
    for name in ("edited", "deleted", "folder", "kept"):
        (tmp_path / f"{name}.py").write_bytes(b"1\n")
    (tmp_path / "recreated.py").write_bytes(b"was here\n")
    _batch(tmp_path, "", {"edited.py": b"2\n", "deleted.py": b"2\n", "folder.py": b"2\n",
                                  "kept.py": b"2\n", "recreated.py": None})
    (tmp_path / "edited.py").write_bytes(b"the user's line\n")
    (tmp_path / "deleted.py").unlink()
    (tmp_path / "folder.py").unlink()
    (tmp_path / "folder.py").mkdir()
    (tmp_path / "recreated.py").write_bytes(b"user's new file\n")
    report = undo_last_batch(tmp_path)
    assert report.status == "refused" and report.restored == ()
    assert set(report.refused) == {
        RefusedFile("edited.py", "edited since spark's edit"),
        RefusedFile("deleted.py", "deleted since spark's edit"),
        RefusedFile("folder.py", "a folder now stands where the file was"),
        RefusedFile("recreated.py", "created again since spark deleted it"),
    }
    assert "edited.py: edited since spark's edit" in report.message
    assert (tmp_path / "kept.py").read_bytes() == b"2\n"  # refused means nothing restored
    assert (tmp_path / "edited.py").read_bytes() == b"the user's line\n"
    forced = undo_last_batch(tmp_path, force=True)
    assert forced.status == "undone" and "folder.py" not in forced.restored
    assert (tmp_path / "edited.py").read_bytes() == b"1\n"
    assert (tmp_path / "kept.py").read_bytes() == b"1\n"
    assert (tmp_path / "recreated.py").read_bytes() == b"was here\n"


def test_a_lost_copy_refuses_the_whole_batch(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"1\n")
    batch = _batch(tmp_path, "", {"b.py": b"new\n", "a.py": b"2\n"})
    shutil.rmtree(undo_dir(tmp_path) / batch / "blobs")  # a.py's old bytes are lost
    report = undo_last_batch(tmp_path)
    assert report.status == "refused" and not report.restored
    assert "'a.py'" in report.message and "saved copy cannot be read" in report.message
    assert [f.path for f in report.refused] == ["a.py"]
    assert (tmp_path / "a.py").read_bytes() == b"2\n"  # nothing applied half-way
    assert (tmp_path / "b.py").read_bytes() == b"new\n"


def test_session_diff_covers_the_session_from_its_mark(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"x = 0\ny = 0\n")
    (tmp_path / "c.py").write_bytes(b"c\n")
    _batch(tmp_path, "long ago", {"old.py": b"old\n"})
    _batch(tmp_path, "before the session", {"a.py": b"x = 1\ny = 0\n"})
    mark = latest_batch_id(tmp_path)
    assert session_diff(tmp_path, mark) == []
    _batch(tmp_path, "turn 1", {"a.py": b"x = 1\ny = 2\n", "c.py": b"c2\n"})
    _batch(tmp_path, "turn 2", {"a.py": b"x = 1\ny = 3\n", "new.py": b"n\n", "c.py": b"c\n"})
    diffs = dict(session_diff(tmp_path, mark))
    assert list(diffs) == ["a.py", "new.py"]  # c.py is back as it was: no diff
    assert diffs["a.py"] == ("--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 0\n+y = 3\n")
    assert diffs["new.py"] == "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+n\n"
    everything = dict(session_diff(tmp_path, None))
    assert "-x = 0\n" in everything["a.py"]  # from before the first recorded batch
    (tmp_path / "a.py").write_bytes(b"x = 1\ny = 4\n")  # the user's own edit shows too
    assert "+y = 4\n" in dict(session_diff(tmp_path, mark))["a.py"]
    undo_last_batch(tmp_path, force=True)
    assert dict(session_diff(tmp_path, mark)) == {
        "a.py": "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 0\n+y = 2\n",
        "c.py": "--- a/c.py\n+++ b/c.py\n@@ -1 +1 @@\n-c\n+c2\n"}
    undo_last_batch(tmp_path)
    undo_last_batch(tmp_path)  # the mark itself is undone now: older batches are not the session
    assert len(history(undo_dir(tmp_path))) == 1 and session_diff(tmp_path, mark) == []
    assert [path for path, _ in session_diff(tmp_path)] == ["old.py"]


def test_session_diff_of_deleted_binary_and_crlf_files(tmp_path: Path) -> None:
    (tmp_path / "gone.txt").write_bytes(b"bye\n")
    (tmp_path / "blob.bin").write_bytes(b"\x00\x01")
    (tmp_path / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    _batch(tmp_path, "", {"gone.txt": None, "blob.bin": b"\x00\x02",
                          "win.txt": b"one\r\n2\r\n"})
    diffs = dict(session_diff(tmp_path))
    assert diffs["gone.txt"] == "--- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n"
    assert diffs["blob.bin"] == "Binary files a/blob.bin and b/blob.bin differ\n"
    assert diffs["win.txt"].endswith(" one\n-two\n+2\n")


def test_session_diff_with_a_lost_copy_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"1\n")
    batch = _batch(tmp_path, "", {"a.py": b"2\n"})
    shutil.rmtree(undo_dir(tmp_path) / batch / "blobs")
    [(path, note)] = session_diff(tmp_path)
    assert path == "a.py" and "cannot be read" in note


def test_undo_can_stop_at_the_session_mark(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"0\n")
    _batch(tmp_path, "an earlier session", {"a.py": b"1\n"})
    mark = latest_batch_id(tmp_path)
    report = undo_last_batch(tmp_path, since_batch=mark)
    assert report.status == "nothing" and "in this session" in report.message
    assert (tmp_path / "a.py").read_bytes() == b"1\n"
    _batch(tmp_path, "this session", {"a.py": b"2\n"})
    assert undo_last_batch(tmp_path, since_batch=mark).message.startswith("undid this session")
    assert (tmp_path / "a.py").read_bytes() == b"1\n"
    assert undo_last_batch(tmp_path, since_batch=mark).status == "nothing"
    assert undo_last_batch(tmp_path).status == "undone"  # without a mark: like `spark undo`
    assert (tmp_path / "a.py").read_bytes() == b"0\n"

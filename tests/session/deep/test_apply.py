"""Applying a deep change to a real working tree: per hunk, conflicts refused, one undo batch."""

from __future__ import annotations

from pathlib import Path

from spark_cli.session.deep.change import Selection, file_change
from spark_cli.session.deep.task import DeepChange
from spark_cli.session.workspace.changes import undo_last_batch

BASE = "".join(f"line {n}\n" for n in range(1, 31))


def _set(text: str, number: int, new: str) -> str:
    lines = text.splitlines(keepends=True)
    lines[number - 1] = new
    return "".join(lines)


def _change(*files: tuple[str, str | None, str | None]) -> DeepChange:
    changes = [file_change(path, base, theirs) for path, base, theirs in files]
    return DeepChange(tuple(c for c in changes if c is not None), label="deep: test")


def _repo(tmp_path: Path, **files: str) -> Path:
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_apply_all_then_undo_restores_the_working_tree(tmp_path: Path) -> None:
    theirs = _set(_set(BASE, 3, "three\n"), 25, "twenty-five\n")
    ours = _set(BASE, 12, "user twelve\n")
    root = _repo(tmp_path, **{"a.txt": ours, "gone.txt": "bye\n"})
    change = _change(("a.txt", BASE, theirs), ("new.txt", None, "hello\n"),
                     ("gone.txt", "bye\n", None))
    assert [s.state for s in change.review(root)] == ["clean"] * 4
    report = change.apply(root, Selection())
    assert report.batch_id is not None and report.refused == () and report.error is None
    assert report.applied == (("a.txt", 1), ("a.txt", 2), ("new.txt", 1), ("gone.txt", 1))
    assert (root / "a.txt").read_text() == _set(theirs, 12, "user twelve\n")
    assert (root / "new.txt").read_text() == "hello\n"
    assert not (root / "gone.txt").exists()
    assert [s.state for s in change.review(root)] == ["present"] * 4
    undone = undo_last_batch(root)
    assert undone.status == "undone" and undone.message.startswith("undid deep: test:")
    assert (root / "a.txt").read_text() == ours
    assert (root / "gone.txt").read_text() == "bye\n"
    assert not (root / "new.txt").exists()


def test_a_conflicting_hunk_is_refused_and_listed_the_rest_applies(tmp_path: Path) -> None:
    theirs = _set(_set(BASE, 3, "three\n"), 25, "twenty-five\n")
    ours = _set(BASE, 3, "user three\n")
    root = _repo(tmp_path, **{"a.txt": ours})
    change = _change(("a.txt", BASE, theirs))
    review = change.review(root)
    assert [s.state for s in review] == ["conflict", "clean"]
    assert "working-tree lines 3 changed since the snapshot" in review[0].detail
    report = change.apply(root)
    assert report.applied == (("a.txt", 2),)
    assert [(s.path, s.index, s.state) for s in report.refused] == [("a.txt", 1, "conflict")]
    assert "refused 1: a.txt hunk 1: working-tree lines 3" in report.message
    assert (root / "a.txt").read_text() == _set(ours, 25, "twenty-five\n")


def test_apply_per_hunk_and_per_file(tmp_path: Path) -> None:
    theirs = _set(_set(BASE, 3, "three\n"), 25, "twenty-five\n")
    root = _repo(tmp_path, **{"a.txt": BASE, "b.txt": "b\n"})
    change = _change(("a.txt", BASE, theirs), ("b.txt", "b\n", "B\n"))
    report = change.apply(root, Selection.of_hunks(("a.txt", 2)))
    assert report.applied == (("a.txt", 2),)
    assert (root / "a.txt").read_text() == _set(BASE, 25, "twenty-five\n")
    assert (root / "b.txt").read_text() == "b\n"
    report = change.apply(root, Selection.of_files("b.txt"))
    assert report.applied == (("b.txt", 1),) and (root / "b.txt").read_text() == "B\n"
    # the rest later: the applied hunk is already there, the other one still applies
    report = change.apply(root)
    assert report.applied == (("a.txt", 1),)
    assert set(report.present) == {("a.txt", 2), ("b.txt", 1)}
    assert (root / "a.txt").read_text() == theirs
    assert change.apply(root, Selection.of_hunks(("zzz", 1))).message == "nothing selected"


def test_crlf_endings_and_mode_of_the_users_file_are_kept(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes(BASE.replace("\n", "\r\n").encode())
    path.chmod(0o755)
    change = _change(("w.txt", BASE, _set(BASE, 7, "seven\n")))
    change.apply(tmp_path)
    assert path.read_bytes() == _set(BASE, 7, "seven\n").replace("\n", "\r\n").encode()
    assert path.stat().st_mode & 0o777 == 0o755


def test_binary_files_and_paths_outside_the_repo_are_refused(tmp_path: Path) -> None:
    (tmp_path / "bin.dat").write_bytes(b"\0\1\2")
    change = _change(("bin.dat", "text\n", "other\n"), ("../out.txt", None, "x\n"),
                     (".git/config", None, "x\n"))
    report = change.apply(tmp_path)
    assert report.applied == () and report.batch_id is None
    reasons = {s.path: s.detail for s in report.refused}
    assert "binary" in reasons["bin.dat"]
    assert "outside the repo" in reasons["../out.txt"]
    assert ".git/" in reasons[".git/config"]
    assert (tmp_path / "bin.dat").read_bytes() == b"\0\1\2"
    assert not (tmp_path.parent / "out.txt").exists()

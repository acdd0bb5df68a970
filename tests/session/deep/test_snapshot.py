"""Snapshots: the working tree frozen outside the repo (git worktree or copy), diffed, removed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from spark_cli.session.deep.snapshot import GitSnapshot, Snapshot, SnapshotError, take_snapshot
from tests.session.deep.repos import git, make_repo, tree

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def test_git_snapshot_holds_uncommitted_and_untracked_work_and_leaves_the_repo_alone(
        tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n", "gone.py": "x\n",
                                         ".gitignore": "build/\n"}, use_git=True)
    (repo / "a.py").write_text("a = 2\n")  # unstaged
    (repo / "new.py").write_text("n = 1\n")  # untracked
    (repo / "gone.py").unlink()
    (repo / "build").mkdir()
    (repo / "build" / "out.bin").write_bytes(b"\0\1")  # ignored
    status, stashes, before = git(repo, "status", "--porcelain"), git(repo, "stash", "list"), \
        tree(repo)
    (tmp_path / "snaps").mkdir()
    snap = take_snapshot(repo, parent=tmp_path / "snaps")
    try:
        assert isinstance(snap, GitSnapshot)
        assert tmp_path / "snaps" in snap.root.parents
        assert tree(snap.root) == {k: v for k, v in before.items() if not k.startswith("build")}
        assert (git(repo, "status", "--porcelain"), git(repo, "stash", "list")) == (status,
                                                                                    stashes)
        assert snap.changes() == ([], [])
        (snap.root / "a.py").write_text("a = 3\n")
        (snap.root / "new.py").unlink()
        (snap.root / "made.py").write_text("m = 1\n")
        changed, skipped = snap.changes()
        assert sorted(changed) == [("a.py", b"a = 2\n", b"a = 3\n"), ("made.py", None, b"m = 1\n"),
                                   ("new.py", b"n = 1\n", None)]
        assert skipped == []
        assert tree(repo) == before  # the user's tree never changes
    finally:
        snap.remove()
    assert not snap.folder.exists()
    assert str(snap.folder) not in git(repo, "worktree", "list")


def test_git_snapshot_of_a_subfolder_root(tmp_path: Path) -> None:
    top = make_repo(tmp_path / "top", {"pkg/m.py": "m = 1\n", "other.py": "o\n"}, use_git=True)
    snap = take_snapshot(top / "pkg")
    try:
        assert tree(snap.root) == {"m.py": b"m = 1\n"}
        (snap.root / "m.py").write_text("m = 2\n")
        assert snap.changes()[0] == [("m.py", b"m = 1\n", b"m = 2\n")]
    finally:
        snap.remove()


@pytest.mark.parametrize("use_git", [False, True])
def test_copy_snapshot_without_git_or_without_commits(tmp_path: Path, use_git: bool) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 1\n", ".gitignore": "*.log\n",
                                         "sub/b.py": "b\n"}, use_git=False)
    if use_git:
        git(repo, "init", "-q")  # a repo with no commit yet: copied too
    (repo / "debug.log").write_text("noise\n")
    (repo / ".spark").mkdir()
    (repo / ".spark" / "config.toml").write_text("")
    snap = take_snapshot(repo)
    try:
        assert type(snap) is Snapshot
        assert tree(snap.root) == {".gitignore": b"*.log\n", "a.py": b"a = 1\n",
                                   "sub/b.py": b"b\n"}
        (snap.root / "a.py").write_text("a = 2\n")  # replaced, as spark writes
        (snap.root / "sub" / "b.py").unlink()
        (snap.root / "c.py").write_text("c\n")
        changed, _ = snap.changes()
        assert sorted(changed) == [("a.py", b"a = 1\n", b"a = 2\n"), ("c.py", None, b"c\n"),
                                   ("sub/b.py", b"b\n", None)]
        assert (repo / "a.py").read_text() == "a = 1\n"
    finally:
        snap.remove()
    assert not snap.folder.exists()


def test_a_snapshot_inside_the_repo_is_refused(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a\n"}, use_git=False)
    with pytest.raises(SnapshotError, match="inside the repo"):
        take_snapshot(repo, parent=repo)
    assert sorted(p.name for p in repo.iterdir()) == ["a.py"]


def test_snapshots_of_a_dead_spark_are_swept(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a\n"}, use_git=True)
    snaps = tmp_path / "snaps"
    snaps.mkdir()
    dead = take_snapshot(repo, parent=snaps)
    (dead.folder / "owner.pid").write_text("999999999")  # no such process
    alive = take_snapshot(repo, parent=snaps)  # sweeps the dead one first
    try:
        assert not dead.folder.exists() and alive.folder.exists()
        assert str(dead.folder) not in git(repo, "worktree", "list")
    finally:
        alive.remove()
    assert list(snaps.iterdir()) == []


def test_a_repo_in_a_conflicted_merge_is_copied_instead(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", {"a.py": "a = 0\n"}, use_git=True)
    git(repo, "checkout", "-q", "-b", "other")
    (repo / "a.py").write_text("a = 1\n")
    git(repo, "commit", "-qam", "one")
    git(repo, "checkout", "-q", "-")
    (repo / "a.py").write_text("a = 2\n")
    git(repo, "commit", "-qam", "two")
    with pytest.raises(subprocess.CalledProcessError):
        git(repo, "merge", "-q", "other")
    before = tree(repo)
    snap = take_snapshot(repo)
    try:
        assert type(snap) is Snapshot and tree(snap.root) == before
    finally:
        snap.remove()
    assert tree(repo) == before and "a.py" in git(repo, "diff", "--name-only")

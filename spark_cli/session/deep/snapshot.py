"""A private copy of the repo for a deep task (a git worktree, or a plain copy) with the
working tree's uncommitted work, made without touching the user's git state; snapshots
whose spark died are swept by the next one. Blocking: call from a thread."""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from spark_cli.edits.disk.atomic import pid_alive

Changed = tuple[str, bytes | None, bytes | None]
_GIT = ("git", "-c", "core.hooksPath=/dev/null", "-c", "user.name=spark",
        "-c", "user.email=spark@localhost", "-c", "commit.gpgsign=false")
_SKIP = frozenset({".git", ".spark"})
_TIMEOUT = 120.0
PREFIX = "spark-deep-"
OWNER = "owner.pid"


class SnapshotError(Exception):
    """The snapshot could not be made (the message says why); nothing was left behind."""


def _git(cwd: Path, *args: str, data: bool = False) -> bytes:
    try:
        done = subprocess.run([*_GIT, *args], cwd=cwd, capture_output=True, check=False,
                              timeout=_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise SnapshotError(f"git {args[0]}: {exc}") from None
    if done.returncode != 0:
        why = done.stderr.decode(errors="replace").strip().splitlines()
        raise SnapshotError(f"git {args[0]} failed: {why[-1] if why else done.returncode}")
    return done.stdout if data else done.stdout.strip()


class Snapshot:
    """A frozen copy of the repo in ``folder``; the task works in ``root`` (the repo root's
    counterpart). Without git (or when git cannot snapshot) two real copies, ``base/`` and
    ``work/``, minus ``.git``, ``.spark`` and what the root ``.gitignore`` ignores."""

    def __init__(self, folder: Path, root: Path) -> None:
        self.folder = folder
        self.root = root

    def changes(self) -> tuple[list[Changed], list[tuple[str, str]]]:
        """(changed files, (path, why) not mergeable), relative to the repo root."""
        base, work = self.folder / "base", self.root
        before, after = dict(_walk(base, None)), dict(_walk(work, None))
        changed: list[Changed] = []
        skipped: list[tuple[str, str]] = []
        for rel in sorted(before.keys() | after.keys()):
            old, new = before.get(rel), after.get(rel)
            if any(s is not None and stat.S_ISLNK(s.st_mode) for s in (old, new)):
                if _link(base / rel, old) != _link(work / rel, new):
                    skipped.append((rel, "a symlink: not merged"))
                continue
            old_bytes = (base / rel).read_bytes() if old is not None else None
            new_bytes = (work / rel).read_bytes() if new is not None else None
            if old_bytes != new_bytes:
                changed.append((rel, old_bytes, new_bytes))
        return changed, skipped

    def remove(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _link(path: Path, st: os.stat_result | None) -> str | None:
    """What a symlink points to; None for an absent path, "" for a regular file."""
    if st is None:
        return None
    return os.readlink(path) if stat.S_ISLNK(st.st_mode) else ""


class GitSnapshot(Snapshot):
    def __init__(self, folder: Path, root: Path, top: Path, work: Path, base: str,
                 prefix: str) -> None:
        super().__init__(folder, root)
        self.top, self.work, self.base, self.prefix = top, work, base, prefix

    def changes(self) -> tuple[list[Changed], list[tuple[str, str]]]:
        _git(self.work, "add", "-A")
        raw = _git(self.work, "diff", "--cached", "--raw", "--no-renames", "-z", self.base,
                   data=True).split(b"\0")
        changed: list[Changed] = []
        skipped: list[tuple[str, str]] = []
        for meta, name in zip(raw[0::2], raw[1::2], strict=False):
            if not meta:
                continue
            old_mode, new_mode, _, _, status = meta.decode().lstrip(":").split(" ")
            path = os.fsdecode(name)
            rel = path[len(self.prefix):] if path.startswith(self.prefix) else None
            if rel is None:
                continue  # outside spark's root (a sibling folder of the git repo)
            if {old_mode, new_mode} & {"120000", "160000"}:
                skipped.append((rel, "a symlink or submodule: not merged"))
                continue
            old = None if status == "A" else _git(self.work, "cat-file", "blob",
                                                  f"{self.base}:{path}", data=True)
            new = None if status == "D" else (self.work / path).read_bytes()
            changed.append((rel, old, new))
        return changed, skipped

    def remove(self) -> None:
        with contextlib.suppress(SnapshotError):
            _git(self.top, "worktree", "remove", "--force", str(self.work))
        super().remove()
        with contextlib.suppress(SnapshotError):
            _git(self.top, "worktree", "prune")


def _ignored(root: Path) -> object:
    path = root / ".gitignore"
    if not path.is_file():
        return None
    import pathspec  # deferred: TUI launch

    try:
        return pathspec.GitIgnoreSpec.from_lines(path.read_text(errors="replace").splitlines())
    except (OSError, ValueError):
        return None


def _walk(root: Path, spec: object) -> Iterator[tuple[str, os.stat_result]]:
    """(relative path, lstat) of every file and symlink under ``root`` that is kept."""
    match = getattr(spec, "match_file", None)
    for folder, dirs, files in os.walk(root):
        rel_dir = os.path.relpath(folder, root)
        rel_dir = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        kept = []
        for name in dirs:
            if name in _SKIP or (match is not None and match(rel_dir + name + "/")):
                continue
            full = os.path.join(folder, name)
            if os.path.islink(full):  # a link to a folder: kept as a link, not followed
                yield rel_dir + name, os.lstat(full)
            else:
                kept.append(name)
        dirs[:] = kept
        for name in files:
            rel = rel_dir + name
            if match is None or not match(rel):
                yield rel, os.lstat(os.path.join(folder, name))


def _copy_file(source: Path, target: Path) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.is_symlink():
        os.symlink(os.readlink(source), target)
        return
    shutil.copy2(source, target)


def _copy_snapshot(root: Path, folder: Path) -> Snapshot:
    base, work = folder / "base", folder / "work"
    base.mkdir()
    work.mkdir()
    for rel, _ in _walk(root, _ignored(root)):
        _copy_file(root / rel, base / rel)
        _copy_file(base / rel, work / rel)
    return Snapshot(folder, work)


def _git_snapshot(root: Path, folder: Path) -> GitSnapshot | None:
    try:
        top = Path(os.fsdecode(_git(root, "rev-parse", "--show-toplevel")))
    except SnapshotError:
        return None
    try:
        head = _git(top, "rev-parse", "--verify", "-q", "HEAD").decode()
    except SnapshotError:
        return None  # no commits yet: a plain copy does
    commit = _git(top, "stash", "create").decode() or head
    prefix = os.path.relpath(os.path.realpath(root), os.path.realpath(top))
    prefix = "" if prefix == "." else prefix.replace(os.sep, "/") + "/"
    work = folder / "work"
    _git(top, "worktree", "prune")  # registrations of snapshots swept after a crash
    _git(top, "worktree", "add", "--detach", "--quiet", str(work), commit)
    snap = GitSnapshot(folder, work / prefix if prefix else work, top, work, "", prefix)
    try:
        untracked = _git(top, "ls-files", "--others", "--exclude-standard", "-z", data=True)
        for name in filter(None, untracked.split(b"\0")):
            rel = os.fsdecode(name)
            if (top / rel).is_file() or (top / rel).is_symlink():
                _copy_file(top / rel, work / rel)
        _git(work, "add", "-A")
        _git(work, "commit", "-q", "--no-verify", "--allow-empty", "-m", "spark deep snapshot")
        snap.base = _git(work, "rev-parse", "HEAD").decode()
    except (SnapshotError, OSError):
        snap.remove()
        raise
    return snap


def sweep_stale(parent: Path | None = None) -> list[Path]:
    """Remove snapshots whose spark process is gone."""
    base = Path(parent) if parent is not None else Path(tempfile.gettempdir())
    removed = []
    try:
        folders = [p for p in base.iterdir() if p.name.startswith(PREFIX) and p.is_dir()]
    except OSError:
        return []
    for folder in folders:
        try:
            pid = int((folder / OWNER).read_text().strip())
        except (OSError, ValueError):
            continue  # not ours, or being made right now
        if not pid_alive(pid):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def take_snapshot(root: Path, *, parent: Path | None = None) -> Snapshot:
    """Freeze the working tree at ``root`` in a new temp dir; ``SnapshotError`` if it cannot."""
    root = Path(os.path.realpath(root))
    sweep_stale(parent)
    folder = Path(tempfile.mkdtemp(prefix=PREFIX, dir=parent))
    (folder / OWNER).write_text(str(os.getpid()))
    if folder == root or root in folder.parents:
        shutil.rmtree(folder, ignore_errors=True)
        raise SnapshotError(f"the snapshot folder {folder} would be inside the repo")
    try:
        try:
            snap = _git_snapshot(root, folder) if shutil.which("git") else None
        except SnapshotError:  # e.g. a merge in progress: git cannot record the tree
            shutil.rmtree(folder / "work", ignore_errors=True)
            snap = None
        return snap if snap is not None else _copy_snapshot(root, folder)
    except SnapshotError:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise SnapshotError(f"cannot copy the repo: {exc.strerror or exc}") from None

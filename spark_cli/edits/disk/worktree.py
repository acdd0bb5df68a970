"""The files as the applier sees them: the disk, or under a dry run the disk plus an
in-memory overlay (later blocks see earlier ones; nothing on disk changes)."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from spark_cli.edits.disk.atomic import remove_file, write_atomic
from spark_cli.edits.disk.journal import Journal
from spark_cli.edits.disk.paths import RepoPath
from spark_cli.record import record


@record
class FileState:
    """A regular file's bytes and permission bits."""

    data: bytes
    mode: int


@dataclass(slots=True)
class Write:
    """One planned change: ``after`` None = delete the file."""

    target: RepoPath
    before: bytes | None
    before_mode: int | None
    after: bytes | None
    after_mode: int | None


class WorkTree:
    """Reads and writes files for the applier; ``dry_run`` keeps writes in memory."""

    def __init__(self, *, dry_run: bool = False) -> None:
        self.dry_run = dry_run
        self._overlay: dict[str, FileState | None] = {}

    def exists(self, path: Path) -> bool:
        key = os.path.realpath(path)
        if key in self._overlay:
            return self._overlay[key] is not None
        return path.exists() or path.is_symlink()

    def is_dir(self, path: Path) -> bool:
        return os.path.realpath(path) not in self._overlay and path.is_dir()

    def size(self, path: Path) -> int:
        state = self._overlay.get(os.path.realpath(path))
        return len(state.data) if state is not None else path.stat().st_size

    def read(self, path: Path) -> FileState:
        """The file's bytes and mode; raises FileNotFoundError (or another OSError)."""
        key = os.path.realpath(path)
        if key in self._overlay:
            state = self._overlay[key]
            if state is None:
                raise FileNotFoundError(2, "No such file or directory", str(path))
            return state
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise IsADirectoryError(21, "Not a regular file", str(path))
        return FileState(path.read_bytes(), stat.S_IMODE(st.st_mode))

    def commit(self, writes: list[Write], journal: Journal | None) -> None:
        """Apply ``writes`` in order; on a real run each is journalled before it is written."""
        for write in writes:
            if self.dry_run:
                self._overlay[os.path.realpath(write.target.path)] = (
                    None if write.after is None
                    else FileState(write.after, write.after_mode or 0o644))
                continue
            if journal is not None:
                journal.record(write.target.rel, write.before, write.before_mode, write.after,
                               write.after_mode)
            try:
                if write.after is None:
                    remove_file(write.target.path)
                else:
                    write_atomic(write.target.path, write.after, write.after_mode)
            except OSError:
                if journal is not None:
                    journal.forget(write.target.rel, write.before, write.before_mode)
                raise

"""Crash-safe file writes: temp file in the same directory, fsync, keep the mode, rename.

A reader (or a crash) sees either the whole old file or the whole new one, never a
mix. Writing through a symlink replaces the link's target, not the link.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

_TEMP_SUFFIX = ".spark-tmp"


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


_DEFAULT_MODE = 0o666 & ~_umask()


def fsync_dir(directory: Path) -> None:
    """Make a rename or unlink in ``directory`` durable (best effort where unsupported)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int | None = None) -> None:
    """Replace ``path`` with ``data`` atomically; ``mode`` defaults to the existing file's."""
    target = Path(os.path.realpath(path))
    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = _DEFAULT_MODE
    fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=_TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fchmod(handle.fileno(), mode)
            os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    fsync_dir(directory)


def remove_file(path: Path) -> None:
    """Delete ``path`` (the link itself if it is a symlink) and make it durable."""
    os.unlink(path)
    fsync_dir(path.parent)

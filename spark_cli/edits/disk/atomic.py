"""Crash-safe file writes: a temp file beside the target (``.<name>.<pid>.<random>.spark-tmp``,
swept by `remove_stale_temps` once its writer is gone), fsync, the mode kept, rename."""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from pathlib import Path

TEMP_SUFFIX = ".spark-tmp"
_TEMP_NAME = re.compile(r"^\..+\.spark-tmp$", re.S)
_TEMP_PID = re.compile(r"\.(\d+)\.[^.]+\.spark-tmp$")
_STALE_AFTER = 3600.0  # seconds: no write takes this long, whoever runs it


_UMASK = os.umask(0)  # read by setting it: put it back at once
os.umask(_UMASK)
_DEFAULT_MODE = 0o666 & ~_UMASK


def fsync_dir(directory: Path) -> None:
    """Make a rename or unlink in ``directory`` durable (best effort where unsupported)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def write_atomic(path: Path, data: bytes, mode: int | None = None, *,
                 durable: bool = True) -> None:
    """Replace ``path`` with ``data`` atomically; ``durable=False`` skips the fsyncs."""
    target = Path(os.path.realpath(path))
    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True)
    if mode is None:
        try:
            mode = stat.S_IMODE(target.stat().st_mode)
        except FileNotFoundError:
            mode = _DEFAULT_MODE
    temp = directory / f".{target.name}.{os.getpid()}.{os.urandom(4).hex()}{TEMP_SUFFIX}"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            os.fchmod(handle.fileno(), mode)
            if durable:
                handle.flush()
                os.fsync(handle.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise
    if durable:
        fsync_dir(directory)


def remove_file(path: Path) -> None:
    """Delete ``path`` (the link itself if it is a symlink) and make it durable."""
    os.unlink(path)
    fsync_dir(path.parent)


def is_temp_name(name: str) -> bool:
    """Is ``name`` (a file name, not a path) a spark temp file's?"""
    return _TEMP_NAME.match(name) is not None


def _writer_gone(name: str, age: float) -> bool:
    if age > _STALE_AFTER:
        return True
    found = _TEMP_PID.search(name)
    if found is None:  # an older spark's name, without the pid: stale once not fresh
        return age > 60.0
    pid = int(found.group(1))
    return pid != os.getpid() and not pid_alive(pid)  # ours: a write may be under way


def pid_alive(pid: int) -> bool:
    """Whether process ``pid`` exists (another user's counts: it is not ours to judge)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def remove_stale_temps(directory: Path) -> list[Path]:
    """Delete the spark temp files in ``directory`` whose writer is gone; returns them."""
    removed: list[Path] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        if not is_temp_name(entry.name):
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if stat.S_ISREG(info.st_mode) and _writer_gone(entry.name, now - info.st_mtime):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except OSError:
            continue
    return removed

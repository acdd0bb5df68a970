"""The undo journal: each batch (one answer) a folder of ``batch.json`` and the before bytes,
saved before a file is first written, so even a crash mid-batch can be undone; `undo`
refuses changed files (unless forced) and unsafe entries."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from spark_cli.edits.disk.atomic import remove_file, remove_stale_temps, write_atomic
from spark_cli.edits.disk.batch_folders import batch_names, to_prune
from spark_cli.record import record

MANIFEST = "batch.json"
KEEP_BATCHES = 100


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


class UndoRefused(Exception):
    """Nothing to undo, files changed since the batch (``changed``), or an ``unsafe`` entry."""

    def __init__(self, message: str, changed: tuple[str, ...] = (),
                 unsafe: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.changed = changed
        self.unsafe = unsafe


@dataclass(slots=True)
class FileRecord:
    """One file in a batch: its state before the batch and after it (None = absent)."""

    path: str
    before_hash: str | None
    before_mode: int | None
    after_hash: str | None
    after_mode: int | None

    @property
    def change(self) -> str:
        if self.before_hash is None:
            return "created"
        if self.after_hash is None:
            return "deleted"
        return "modified"


@dataclass(slots=True)
class BatchInfo:
    """A recorded batch as `history` lists it."""

    id: str
    time: float
    label: str
    files: list[FileRecord] = field(default_factory=list)

    @property
    def summary(self) -> str:
        counts = Counter(entry.change for entry in self.files)
        parts = [f"{n} {kind}" for kind, n in sorted(counts.items())]
        return ", ".join(parts) or "no files"


def _load(folder: Path) -> BatchInfo | None:
    try:
        raw = json.loads((folder / MANIFEST).read_text())
        files = [FileRecord(**entry) for entry in raw["files"]]
        return BatchInfo(raw["id"], float(raw["time"]), raw.get("label", ""), files)
    except (OSError, ValueError, KeyError, TypeError):
        return None


class Journal:
    """Records one batch at a time for ``root`` in ``folder``; `begin` ... `record` ... `end`."""

    def __init__(self, root: Path, folder: Path) -> None:
        self.root = Path(root)
        self.folder = Path(folder)
        self._batch: BatchInfo | None = None
        self._folder: Path | None = None

    def begin(self, label: str = "") -> str:
        if self._batch is not None:
            self.end()
        now = time.time()
        batch_id = f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime(now))}-{os.urandom(3).hex()}"
        self._batch = BatchInfo(batch_id, now, label)
        self._folder = None  # created lazily: an empty batch leaves nothing behind
        return batch_id

    def _ensure_folder(self) -> Path:
        if self._folder is None:
            assert self._batch is not None
            self._folder = self.folder / self._batch.id
            (self._folder / "blobs").mkdir(parents=True, exist_ok=True)
        return self._folder

    def record(self, rel: str, before: bytes | None, before_mode: int | None,
               after: bytes | None, after_mode: int | None) -> None:
        """Note a change to ``rel``: call BEFORE writing it (the old bytes are saved first)."""
        if self._batch is None:
            self.begin()
        assert self._batch is not None
        folder = self._ensure_folder()
        existing = next((r for r in self._batch.files if r.path == rel), None)
        if existing is None:
            digest = _digest(before)
            if before is not None and digest is not None:
                blob = folder / "blobs" / digest
                if not blob.exists():
                    write_atomic(blob, before, 0o600)
            self._batch.files.append(
                FileRecord(rel, digest, before_mode, _digest(after), after_mode))
        else:  # touched again in the same batch: the first before-state stays
            existing.after_hash, existing.after_mode = _digest(after), after_mode
        self._save()

    def forget(self, rel: str, before: bytes | None, before_mode: int | None) -> None:
        """A write to ``rel`` failed: its state is still ``before``."""
        if self._batch is None:
            return
        for entry in list(self._batch.files):
            if entry.path == rel:
                if entry.before_hash == _digest(before):
                    self._batch.files.remove(entry)
                else:
                    entry.after_hash, entry.after_mode = _digest(before), before_mode
        self._save()

    def _save(self) -> None:
        assert self._batch is not None
        folder = self._ensure_folder()
        payload = json.dumps(asdict(self._batch), indent=1)  # id, time, label, files
        write_atomic(folder / MANIFEST, payload.encode(), 0o600)

    def end(self) -> BatchInfo | None:
        """Close the batch; returns it, or None if it changed nothing."""
        batch, folder = self._batch, self._folder
        self._batch, self._folder = None, None
        if batch is None:
            return None
        if not batch.files:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
            return None
        _prune(self.folder)
        return batch


def history(folder: Path) -> list[BatchInfo]:
    folder = Path(folder)
    if not folder.is_dir():
        return []
    batches = [b for b in (_load(p) for p in folder.iterdir() if p.is_dir()) if b and b.files]
    return sorted(batches, key=lambda b: (b.time, b.id), reverse=True)


def clean_stale_temps(root: Path, undo_root: Path, batches: int = 3) -> list[str]:
    """Delete the temp files killed writes left where the newest ``batches`` wrote."""
    root, undo_root = Path(root), Path(undo_root)
    newest = [undo_root / name for name in batch_names(undo_root)[:batches]]
    folders = {root, *newest}
    for folder in newest:
        batch = _load(folder)
        for entry in batch.files if batch is not None else ():
            if path_problem(root, entry.path) is None:
                folders.add((root / entry.path).parent)
    removed = [path for folder in sorted(folders) for path in remove_stale_temps(folder)]
    return [os.path.relpath(path, root) for path in removed]


def _prune(undo_root: Path) -> None:
    """Delete the batches older than the newest KEEP_BATCHES (`batch_folders.to_prune`)."""

    def time_of(name: str) -> float | None:
        batch = _load(undo_root / name)
        return None if batch is None else batch.time

    for name in to_prune(batch_names(undo_root), KEEP_BATCHES, time_of):
        shutil.rmtree(undo_root / name, ignore_errors=True)


def before_bytes(folder: Path, batch_id: str, entry: FileRecord) -> bytes | None:
    """The bytes ``entry``'s file had before the batch (None: absent); ``OSError`` if unreadable."""
    if entry.before_hash is None:
        return None
    return (Path(folder) / batch_id / "blobs" / entry.before_hash).read_bytes()


def current_digest(path: Path) -> str | None:
    """The SHA-256 of the file now (None = absent; a directory never matches a file)."""
    if not path.exists() and not path.is_symlink():
        return None
    if path.is_dir():
        return "<directory>"
    try:
        return _digest(path.read_bytes())
    except OSError:
        return "<unreadable>"


def _remove_empty_parents(directory: Path, root: Path) -> None:
    """Remove folders a batch created and that are empty again (never ``root`` itself)."""
    root_real = Path(os.path.realpath(root))
    current = Path(os.path.realpath(directory))
    while current != root_real and root_real in current.parents:
        try:
            current.rmdir()
        except OSError:
            return
        current = current.parent


@record
class UndoResult:
    """What `undo` restored."""

    batch: BatchInfo
    restored: tuple[str, ...]


def undo(root: Path, undo_root: Path, *, force: bool = False) -> UndoResult:
    """Restore the newest batch in ``undo_root``; `UndoRefused` when none, unsafe or changed."""
    root = Path(root)
    batches = history(undo_root)
    if not batches:
        raise UndoRefused(f"nothing to undo: no recorded batches in {undo_root}")
    batch = batches[0]
    folder = Path(undo_root) / batch.id
    for entry in batch.files:
        problem = entry_problem(root, folder, entry)
        if problem is not None:
            raise UndoRefused(f"refusing to undo batch {batch.id}: entry {entry.path!r}: "
                              f"{problem}; nothing was restored", unsafe=str(entry.path))
    now = {entry.path: current_digest(root / entry.path) for entry in batch.files}
    # a file back in its before-state (never written, or restored) needs nothing
    pending = [e for e in batch.files
               if now[e.path] == e.after_hash or now[e.path] != e.before_hash]
    changed = [e.path for e in pending if now[e.path] != e.after_hash]
    if changed and not force:
        raise UndoRefused(
            "refusing to undo: changed since the batch: " + ", ".join(changed)
            + " (use --force to restore anyway)",
            tuple(changed),
        )
    restored = []
    for entry in reversed(pending):
        path = root / entry.path
        if path.is_dir() and not path.is_symlink():
            continue  # forced, but a folder now stands where the file was: leave it
        restored.append(entry.path)
        if entry.before_hash is None:
            if path.exists() or path.is_symlink():
                remove_file(path)
            _remove_empty_parents(path.parent, root)
        else:
            data = (folder / "blobs" / entry.before_hash).read_bytes()
            write_atomic(path, data, entry.before_mode)
    shutil.rmtree(folder, ignore_errors=True)
    return UndoResult(batch, tuple(reversed(restored)))


def path_problem(root: Path, rel: object) -> str | None:
    if not isinstance(rel, str) or not rel or "\0" in rel:
        return "its path is not a file name"
    if os.path.isabs(rel) or rel.startswith("~"):
        return "its path is absolute"
    if ".." in Path(rel).parts:
        return "its path climbs out with '..'"
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, rel))
    if os.path.commonpath([real_root, real]) != real_root or real == real_root:
        return f"its path resolves outside the repo (to {real}, through a symlink)"
    return None


def entry_problem(root: Path, batch_folder: Path, entry: FileRecord) -> str | None:
    """Why ``entry`` must not be restored (outside ``root``, malformed, bad copy); None if sound."""
    outside = path_problem(root, entry.path)
    if outside is not None:
        return outside
    for name in ("before_hash", "after_hash"):
        value = getattr(entry, name)
        if value is not None and not (isinstance(value, str) and len(value) == 64
                                      and all(c in "0123456789abcdef" for c in value)):
            return f"malformed record: {name} is not a SHA-256"
    for name in ("before_mode", "after_mode"):
        value = getattr(entry, name)
        if value is not None and (type(value) is not int or not 0 <= value <= 0o7777):
            return f"malformed record: {name} is not a file mode"
    if entry.before_hash is not None:
        try:
            data = (Path(batch_folder) / "blobs" / entry.before_hash).read_bytes()
        except OSError as exc:
            return f"its saved copy cannot be read ({exc.strerror or exc})"
        if _digest(data) != entry.before_hash:
            return "its saved copy does not match its hash"
    return None

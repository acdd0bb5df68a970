"""What spark changed in this repo, from the undo journal, as plain data: `/undo` (never an
exception), `/diff` (each file's oldest before-image since a mark, against the file now) and
code rewind (the files as before a turn, as one new batch; a file changed since is refused
unless forced; what commands changed is listed, not restorable)."""

from __future__ import annotations

import calendar
import stat
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from spark_cli.edits.apply.diffs import unified_diff
from spark_cli.edits.disk.atomic import remove_file, write_atomic
from spark_cli.edits.disk.journal import (
    BatchInfo,
    FileRecord,
    Journal,
    UndoRefused,
    before_bytes,
    current_digest,
    history,
    path_problem,
    undo,
)
from spark_cli.edits.disk.textfile import decode
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.workspace.turns import TurnRecord

UndoStatus = Literal["undone", "refused", "nothing", "failed"]
RewindStatus = Literal["rewound", "refused", "nothing", "failed"]
BETWEEN = "changed between spark's edits (by a command or by you)"


@record
class RefusedFile:
    """A file `/undo` would not restore: the user (or something else) changed it since."""

    path: str
    reason: str


@record
class UndoReport:
    """What `/undo` did, ready to show."""

    status: UndoStatus
    """``failed``: an I/O error part-way (``restored`` is back all the same)."""
    message: str
    restored: tuple[str, ...] = ()
    refused: tuple[RefusedFile, ...] = ()


def latest_batch_id(root: Path) -> str | None:
    """The newest recorded batch (the mark to give `session_diff` at session start)."""
    batches = history(undo_dir(root))
    return batches[0].id if batches else None


def why_changed(root: Path, record: FileRecord) -> str:
    path = root / record.path
    if path.is_dir() and not path.is_symlink():
        return "a folder now stands where the file was"
    if not path.exists() and not path.is_symlink():
        return "deleted since spark's edit"
    if record.after_hash is None:
        return "created again since spark deleted it"
    if current_digest(path) == "<unreadable>":
        return "cannot be read now"
    return "edited since spark's edit"


def _names(paths: tuple[str, ...]) -> str:
    if len(paths) <= 5:
        return ", ".join(paths)
    return ", ".join(paths[:5]) + f" and {len(paths) - 5} more"


def undo_last_batch(root: Path, *, force: bool = False,
                    since_batch: str | None = None) -> UndoReport:
    """Restore the newest batch after ``since_batch`` unless changed since (``force``: anyway)."""
    root = Path(root)
    batches = history(undo_dir(root))
    if since_batch is not None and batches and not _since(batches, since_batch):
        return UndoReport("nothing", "nothing to undo in this session "
                          "(`spark undo` restores earlier batches)")
    if not batches:
        return UndoReport("nothing", "nothing to undo")
    batch = batches[0]
    try:
        result = undo(root, undo_dir(root), force=force)
    except UndoRefused as exc:
        if exc.unsafe is not None:
            return UndoReport("refused", exc.message,
                              refused=(RefusedFile(exc.unsafe, exc.message),))
        records = {r.path: r for r in batch.files}
        refused = tuple(
            RefusedFile(p, why_changed(root, records[p]) if p in records else exc.message)
            for p in exc.changed)
        if not refused:  # the batch vanished meanwhile (another spark undid it)
            return UndoReport("nothing", "nothing to undo")
        details = "; ".join(f"{f.path}: {f.reason}" for f in refused)
        return UndoReport("refused", f"not undone: changed since: {details} "
                          "(undo with force to restore them anyway)", refused=refused)
    except OSError as exc:
        back = tuple(r.path for r in batch.files
                     if current_digest(root / r.path) == r.before_hash)
        where = f" ({exc.filename})" if exc.filename else ""
        return UndoReport("failed", f"undo stopped part-way: {exc.strerror or exc}{where}; "
                          f"restored so far: {_names(back) or 'nothing'}", restored=back)
    restored = result.restored
    return UndoReport("undone", f"undid {batch.label or batch.id}: restored "
                      f"{_names(restored) or 'nothing (already as before)'}", restored=restored)


def _id_time(batch_id: str) -> float | None:
    """The second a batch id was made in (ids start ``YYYYmmddTHHMMSS`` in UTC)."""
    try:
        return float(calendar.timegm(time.strptime(batch_id[:15], "%Y%m%dT%H%M%S")))
    except ValueError:
        return None


def _since(batches: list[BatchInfo], mark: str | None) -> list[BatchInfo]:
    """The batches after ``mark``, oldest first (all of them for None)."""
    if mark is not None:
        ids = [b.id for b in batches]
        if mark in ids:
            batches = batches[: ids.index(mark)]
        else:  # the mark was undone (so were all after it) or pruned (all left are newer)
            second = _id_time(mark)
            batches = [b for b in batches if second is None or b.time >= second + 1]
    return list(reversed(batches))


@record
class _Target:
    """One file to restore: the batch that holds its before-state, and how it stands."""

    rel: str
    batch_id: str
    first: FileRecord
    """The oldest batch's record: the before-state to restore."""
    last: FileRecord
    """The newest batch's record: the state the file should be in now."""
    gap: bool
    """Another hand changed it between two of spark's batches."""


def _targets(batches: Sequence[BatchInfo]) -> list[_Target]:
    """Each file of ``batches`` (oldest first) with its oldest and newest record."""
    found: dict[str, _Target] = {}
    for batch in batches:
        for entry in batch.files:
            seen = found.get(entry.path)
            if seen is None:
                found[entry.path] = _Target(entry.path, batch.id, entry, entry, False)
            else:
                gap = seen.gap or entry.before_hash != seen.last.after_hash
                found[entry.path] = _Target(entry.path, seen.batch_id, seen.first, entry, gap)
    return list(found.values())


def _text(data: bytes | None, rel: str) -> str | None:
    if data is None:
        return None
    return decode(data, name=rel).text


def session_diff(root: Path, since_batch: str | None = None) -> list[tuple[str, str]]:
    """``(path, diff)`` per file spark changed after ``since_batch`` that differs now, in order."""
    root = Path(root)
    folder = undo_dir(root)
    out = []
    for target in _targets(_since(history(folder), since_batch)):
        rel, path = target.rel, root / target.rel
        try:
            if path_problem(root, rel) is not None:
                continue  # not spark's record of a file in this repo: never shown
            old_bytes = before_bytes(folder, target.batch_id, target.first)
        except OSError as exc:
            out.append((rel, f"{rel}: spark's copy from before its edit cannot be read "
                             f"({exc.strerror or exc})\n"))
            continue
        try:
            now_bytes = path.read_bytes() if path.is_file() else None
        except OSError as exc:
            out.append((rel, f"{rel}: cannot be read now ({exc.strerror or exc})\n"))
            continue
        if old_bytes == now_bytes:
            continue
        try:
            diff = unified_diff(rel, _text(old_bytes, rel), _text(now_bytes, rel))
        except FileRefused:
            diff = f"Binary files a/{rel} and b/{rel} differ\n"
        if diff:
            out.append((rel, diff))
    return out


@record
class CodeRewind:
    """What a code rewind did, ready to show."""

    status: RewindStatus
    """``refused``: nothing written; ``failed`` part-way: ``restored`` is in the new batch."""
    message: str
    restored: tuple[str, ...] = ()
    refused: tuple[RefusedFile, ...] = ()
    not_restorable: tuple[str, ...] = ()
    """Files the turns' commands changed: the journal has no copy of them."""
    batch_id: str | None = None
    """The batch the rewind recorded (``/undo`` restores what it overwrote)."""


def rewind_code(root: Path, since: float, batch_ids: Sequence[str] = (), *,
                commands: Sequence[str] = (), force: bool = False,
                label: str = "rewind") -> CodeRewind:
    """Restore every file spark changed from ``since`` or in ``batch_ids`` on. Never raises."""
    root = Path(root)
    commands = tuple(dict.fromkeys(commands))
    pending, refused = [], []
    batches = [b for b in history(undo_dir(root)) if b.id in batch_ids or b.time >= since]
    for target in _targets(batches[::-1]):
        problem = path_problem(root, target.rel)
        if problem is not None:  # a forged journal entry: nothing is written
            return CodeRewind("refused", f"not rewound, nothing written: journal entry "
                              f"{target.rel!r}: {problem}", not_restorable=commands)
        now = current_digest(root / target.rel)
        if now == target.first.before_hash and not target.gap:
            continue  # already as before
        if target.gap:
            refused.append(RefusedFile(target.rel, BETWEEN))
        elif now != target.last.after_hash:
            refused.append(RefusedFile(target.rel, why_changed(root, target.last)))
        pending.append(target)
    if refused and not force:
        names = "; ".join(f"{f.path}: {f.reason}" for f in refused)
        return CodeRewind("refused", f"not rewound, nothing written: changed since: {names} "
                          "(--force restores them anyway)", refused=tuple(refused),
                          not_restorable=commands)
    if not pending:
        return CodeRewind("nothing", "no file to restore: spark changed none since then "
                          "(or they are already as before)", not_restorable=commands)
    blobs: dict[str, bytes | None] = {}
    for target in pending:
        try:
            blobs[target.rel] = before_bytes(undo_dir(root), target.batch_id, target.first)
        except OSError as exc:
            return CodeRewind("refused", f"not rewound: the journal's copy of {target.rel} "
                              f"from before batch {target.batch_id} cannot be read "
                              f"({exc.strerror or exc}); nothing was written",
                              not_restorable=commands)
    return _write(root, pending, blobs, label, commands)


def _write(root: Path, pending: list[_Target], blobs: dict[str, bytes | None], label: str,
           commands: tuple[str, ...]) -> CodeRewind:
    journal = Journal(root, undo_dir(root))
    batch_id = journal.begin(label)
    restored: list[str] = []
    try:
        for target in pending:
            path = root / target.rel
            if path.is_dir() and not path.is_symlink():
                continue  # forced, but a folder stands where the file was: left as it is
            exists = path.exists() or path.is_symlink()
            now = path.read_bytes() if exists else None
            mode = stat.S_IMODE(path.stat().st_mode) if exists else None
            data = blobs[target.rel]
            journal.record(target.rel, now, mode, data, target.first.before_mode)
            if data is None:
                if exists:
                    remove_file(path)
            else:
                write_atomic(path, data, target.first.before_mode)
            restored.append(target.rel)
    except OSError as exc:
        done = journal.end()
        where = f" ({exc.filename})" if exc.filename else ""
        return CodeRewind("failed", f"rewind stopped part-way: {exc.strerror or exc}{where}; "
                          f"restored so far: {', '.join(restored) or 'nothing'} (undo takes "
                          "them back)", tuple(restored), not_restorable=commands,
                          batch_id=done.id if done else None)
    journal.end()
    return CodeRewind("rewound", f"restored {', '.join(restored)} as before that message "
                      "(undo takes it back)", tuple(restored), not_restorable=commands,
                      batch_id=batch_id)


def rewind_turns(root: Path, turns: Sequence[TurnRecord], index: int, *,
                 force: bool = False) -> CodeRewind:
    """The files as before ``turns[index]`` (what commands changed: not restorable)."""
    later = turns[index:]
    label = "rewind to: " + (later[0].text.strip().splitlines() or [""])[0][:60]
    return rewind_code(root, later[0].time, [b for t in later for b in t.batches],
                       commands=[f for t in later for f in t.commands], force=force, label=label)

"""Code rewind: the files as before a turn, from the undo journal, as one new batch; all is
checked first (a file changed since, or between spark's batches, is refused unless forced).
Files commands changed are not in the journal: listed, not restorable."""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from spark_cli.edits.disk.atomic import remove_file, write_atomic
from spark_cli.edits.disk.journal import (
    FileRecord,
    Journal,
    before_bytes,
    current_digest,
    history,
    path_problem,
)
from spark_cli.record import record
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.workspace.changes import RefusedFile, why_changed
from spark_cli.session.workspace.turns import TurnRecord

RewindStatus = Literal["rewound", "refused", "nothing", "failed"]
BETWEEN = "changed between spark's edits (by a command or by you)"


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


def _targets(root: Path, since: float, batch_ids: Sequence[str]) -> list[_Target]:
    batches = [b for b in history(undo_dir(root)) if b.id in batch_ids or b.time >= since]
    found: dict[str, _Target] = {}
    for batch in reversed(batches):  # oldest first
        for entry in batch.files:
            seen = found.get(entry.path)
            if seen is None:
                found[entry.path] = _Target(entry.path, batch.id, entry, entry, False)
            else:
                gap = seen.gap or entry.before_hash != seen.last.after_hash
                found[entry.path] = _Target(entry.path, seen.batch_id, seen.first, entry, gap)
    return list(found.values())


def rewind_code(root: Path, since: float, batch_ids: Sequence[str] = (), *,
                commands: Sequence[str] = (), force: bool = False,
                label: str = "rewind") -> CodeRewind:
    """Restore every file spark changed from ``since`` or in ``batch_ids`` on. Never raises."""
    root = Path(root)
    commands = tuple(dict.fromkeys(commands))
    pending, refused = [], []
    for target in _targets(root, since, batch_ids):
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

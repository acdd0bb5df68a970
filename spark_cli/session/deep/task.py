"""One deep task as plain state a HUD reads, and `DeepChange`, the change it came to:
``review`` says per hunk whether it applies; ``apply`` merges the selected hunks and writes
the clean ones as ONE undo batch, as the applier writes (endings, encoding, BOM, mode kept)."""

from __future__ import annotations

import stat
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from spark_cli.edits.disk.journal import Journal
from spark_cli.edits.disk.paths import RepoPath, confine
from spark_cli.edits.disk.textfile import TextFile, decode, new_text_file
from spark_cli.edits.disk.worktree import WorkTree, Write
from spark_cli.edits.lang.ends import lines_of
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.deep.change import (
    ALL,
    ChangedFile,
    HunkStatus,
    Selection,
    matcher,
    merge_file,
    refuse_all,
    review_file,
)

if TYPE_CHECKING:
    from spark_cli.session.events import SessionEvent

DeepState = Literal["snapshotting", "running", "done", "failed", "cancelled", "applied",
                    "dropped"]
ACTIVE: frozenset[DeepState] = frozenset({"snapshotting", "running"})


class NotText(Exception):
    """A file the deep track will not merge (binary, not UTF-8, too large, outside the repo)."""


def decode_text(data: bytes | None, name: str) -> str | None:
    """File bytes as "\\n" text (None stays None); ``NotText`` for a binary file."""
    if data is None:
        return None
    try:
        return decode(data, name=name).text
    except FileRefused as exc:
        raise NotText(exc.message) from None


@record
class DiskText:
    """A working-tree file as the merge sees it: its text (None = absent) and its format."""

    rel: str
    path: Path
    text: str | None
    file: TextFile | None
    raw: bytes | None
    mode: int | None


def read_ours(root: Path, rel: str) -> DiskText:
    """The working tree's ``rel`` now; ``NotText`` when it may not or cannot be merged."""
    try:
        where = confine(root, rel)
    except FileRefused as exc:
        raise NotText(exc.message) from None
    path = where.path
    if not path.exists() and not path.is_symlink():
        return DiskText(where.rel, path, None, None, None, None)
    try:
        st = path.stat()
        if not stat.S_ISREG(st.st_mode):
            raise NotText(f"{rel} is not a regular file in the working tree")
        raw = path.read_bytes()
    except OSError as exc:
        raise NotText(f"{rel}: cannot read ({exc.strerror or exc})") from None
    mode = stat.S_IMODE(st.st_mode)
    try:
        file = decode(raw, mode=mode, name=rel)
    except FileRefused as exc:
        raise NotText(exc.message) from None
    return DiskText(where.rel, path, file.text, file, raw, mode)


def _encode(ours: DiskText, new: str) -> bytes:
    """``new`` in ``ours``' format: unchanged lines keep their endings, encoding and BOM."""
    if ours.file is None or ours.text is None:
        return new_text_file(new).encode()
    old_lines, new_lines = lines_of(ours.text), lines_of(new)
    offsets = [0]
    for line in old_lines:
        offsets.append(offsets[-1] + len(line))
    splices = [(offsets[i1], offsets[i2], "".join(new_lines[j1:j2]))
               for tag, i1, i2, j1, j2 in matcher(old_lines, new_lines).get_opcodes()
               if tag != "equal"]
    return ours.file.spliced(splices).encode()


@record
class Planned:
    """One file to write: ``text`` None = delete it."""

    ours: DiskText
    text: str | None


def write_batch(root: Path, planned: Sequence[Planned], label: str) -> str | None:
    """Write every planned file as one undo batch, as the applier does; its id, or None."""
    if not planned:
        return None
    journal = Journal(root, undo_dir(root))
    batch_id = journal.begin(label)
    writes = [Write(RepoPath(p.ours.rel, p.ours.path), p.ours.raw, p.ours.mode,
                    None if p.text is None else _encode(p.ours, p.text), p.ours.mode)
              for p in planned]
    try:
        WorkTree().commit(writes, journal)
    finally:
        done = journal.end()
    return batch_id if done is not None else None


@record
class ApplyReport:
    """What ``DeepChange.apply`` did, ready to show."""

    applied: tuple[tuple[str, int], ...]  # (path, hunk) pairs written
    present: tuple[tuple[str, int], ...]  # already in the working tree
    refused: tuple[HunkStatus, ...]
    batch_id: str | None  # the undo batch (None: nothing written)
    error: str | None = None  # an I/O error part-way (undo reverts what was written)

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(path for path, _ in self.applied))

    @property
    def message(self) -> str:
        parts = []
        if self.applied:
            parts.append(f"applied {len(self.applied)} hunk(s) to {', '.join(self.files)} "
                         "(one undo batch)")
        if self.present:
            parts.append(f"{len(self.present)} already in the working tree")
        if self.refused:
            shown = "; ".join(f"{s.path} hunk {s.index}: {s.detail}" for s in self.refused[:3])
            more = f" and {len(self.refused) - 3} more" if len(self.refused) > 3 else ""
            parts.append(f"refused {len(self.refused)}: {shown}{more}")
        if self.error:
            parts.append(f"stopped: {self.error}")
        return "; ".join(parts) or "nothing selected"


@record
class DeepChange:
    """What a deep task changed in its snapshot, against the snapshot's start."""

    files: tuple[ChangedFile, ...]
    skipped: tuple[tuple[str, str], ...] = ()  # (path, why) never merged: binary, symlinks
    label: str = "deep task"  # the undo batch's

    @property
    def empty(self) -> bool:
        return not self.files

    @property
    def hunk_count(self) -> int:
        return sum(len(f.hunks) for f in self.files)

    def review(self, root: Path) -> tuple[HunkStatus, ...]:
        out: list[HunkStatus] = []
        for change in self.files:
            try:
                ours = read_ours(Path(root), change.path)
            except NotText as exc:
                out.extend(refuse_all(change, str(exc)))
                continue
            out.extend(review_file(change, ours.text))
        return tuple(out)

    def apply(self, root: Path, select: Selection = ALL) -> ApplyReport:
        """Merge the selected hunks into the working tree at ``root``: one undo batch."""
        root = Path(root)
        applied: list[tuple[str, int]] = []
        present: list[tuple[str, int]] = []
        refused: list[HunkStatus] = []
        planned: list[Planned] = []
        for change in self.files:
            chosen = [h.index for h in change.hunks if select.picks(change.path, h.index)]
            if not chosen:
                continue
            try:
                ours = read_ours(root, change.path)
            except NotText as exc:
                refused.extend(s for s in refuse_all(change, str(exc)) if s.index in chosen)
                continue
            merged = merge_file(change, ours.text, chosen)
            refused.extend(merged.refused)
            present.extend((change.path, i) for i in merged.present)
            if merged.write:
                planned.append(Planned(ours, merged.text))
                applied.extend((change.path, i) for i in merged.applied)
        try:
            batch = write_batch(root, planned, self.label)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return ApplyReport((), tuple(present), tuple(refused), None,
                               f"{exc.strerror or exc}{where}; spark undo reverts what was "
                               "written")
        return ApplyReport(tuple(applied), tuple(present), tuple(refused), batch)


@dataclass(eq=False)
class DeepTask:
    """A deep task: live while it runs, then its result."""

    number: int  # 1, 2, ... in this track (a restored task gets a new one)
    task: str
    state: DeepState = "snapshotting"
    started_at: float = field(default_factory=time.time)
    ended_at: float | None = None
    output_tokens: int = 0  # counted live; the provider's figure once the turn ends
    events: list[SessionEvent] = field(default_factory=list)  # its own transcript
    error: str | None = None  # one line when failed
    change: DeepChange | None = None  # when done (empty: the model changed nothing)
    files: tuple[str, ...] = ()  # the files the deep model was given
    saved_as: str | None = None  # the saved result's id
    note: str | None = None  # shown once when the task starts

    @property
    def active(self) -> bool:
        """Still working (snapshotting or running)."""
        return self.state in ACTIVE

    @property
    def elapsed(self) -> float:
        """Seconds from start to end (or to now while it runs)."""
        return max(0.0, (self.ended_at if self.ended_at is not None else time.time())
                   - self.started_at)

    @property
    def summary(self) -> str:
        """One line for a HUD: ``#2 running 12s 1,234 tok: rename ...``."""
        head = self.task.strip().splitlines()[0] if self.task.strip() else ""
        head = head if len(head) <= 48 else head[:47] + "…"
        extra = ""
        if self.state == "failed" and self.error:
            extra = f" ({self.error})"
        elif self.state == "done" and self.change is not None:
            extra = (" (no changes)" if self.change.empty else
                     f" ({len(self.change.files)} file(s), {self.change.hunk_count} hunk(s) "
                     "to review)")
        return (f"#{self.number} {self.state} {self.elapsed:.0f}s {self.output_tokens:,} tok: "
                f"{head}{extra}")

    def finish(self, state: DeepState, error: str | None = None) -> None:
        self.state = state
        self.error = error
        if self.ended_at is None:
            self.ended_at = time.time()

"""The working tree as the deep merge reads and writes it: decoded text, confined paths, and
merged files written as one undo batch the way the applier does (endings, encoding, BOM and
mode kept)."""

from __future__ import annotations

import stat
from collections.abc import Sequence
from pathlib import Path

from spark_cli.edits.disk.journal import Journal
from spark_cli.edits.disk.paths import RepoPath, confine
from spark_cli.edits.disk.textfile import TextFile, decode, new_text_file
from spark_cli.edits.disk.worktree import WorkTree, Write
from spark_cli.edits.lang.ends import lines_of
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.deep.change import matcher


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

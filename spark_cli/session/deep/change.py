"""What a deep task changed, per file and hunk, and its three-way merge into the working tree
(pure, breezy's ``merge3``: base = the snapshot's start, theirs = the task's result, ours = the
working tree now; a conflict is both sides changing the same or adjacent base lines)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import field
from functools import cached_property
from typing import Literal

import merge3

from spark_cli.edits.apply.diffs import diff_lines, hunk_text
from spark_cli.edits.lang.ends import lines_of
from spark_cli.record import record

ChangeKind = Literal["modify", "create", "delete"]
CONTEXT = 3


def matcher(a: Sequence[str], b: Sequence[str]) -> difflib.SequenceMatcher[str]:
    """difflib without the "popular line" heuristic (it mis-aligns long files)."""
    return difflib.SequenceMatcher(None, a, b, autojunk=False)


@record
class ChangeHunk:
    """One hunk: its ``edits`` (base lines ``[i1, i2)`` become ``lines``)."""

    index: int  # 1-based within its file
    diff: str  # unified-diff text
    edits: tuple[tuple[int, int, tuple[str, ...]], ...] = field(repr=False)  # (i1, i2, lines)


@record
class ChangedFile:
    """One file the deep task changed."""

    path: str
    kind: ChangeKind
    base: str | None = field(repr=False)
    theirs: str | None = field(repr=False)
    hunks: tuple[ChangeHunk, ...] = ()

    @property
    def header(self) -> str:
        old = "/dev/null" if self.base is None else f"a/{self.path}"
        new = "/dev/null" if self.theirs is None else f"b/{self.path}"
        return f"--- {old}\n+++ {new}\n"

    @property
    def diff(self) -> str:
        """The whole file's unified diff."""
        return self.header + "".join(h.diff for h in self.hunks)

    def with_hunks(self, indexes: set[int] | frozenset[int]) -> list[str]:
        """The base's lines with only the hunks numbered ``indexes`` laid on."""
        base = lines_of(self.base)
        edits = sorted(e for h in self.hunks if h.index in indexes for e in h.edits)
        out: list[str] = []
        pos = 0
        for i1, i2, new in edits:
            out.extend(base[pos:i1])
            out.extend(new)
            pos = i2
        out.extend(base[pos:])
        return out

    def blocks_with(self, indexes: set[int] | frozenset[int]) -> list[tuple[int, int, int]]:
        """difflib-style matching blocks of base -> ``with_hunks(indexes)``, from the edits."""
        size = len(lines_of(self.base))
        blocks: list[tuple[int, int, int]] = []
        pos_a = pos_b = 0
        for i1, i2, new in sorted(e for h in self.hunks if h.index in indexes for e in h.edits):
            if i1 > pos_a:
                blocks.append((pos_a, pos_b, i1 - pos_a))
                pos_b += i1 - pos_a
            pos_a, pos_b = i2, pos_b + len(new)
        if size > pos_a:
            blocks.append((pos_a, pos_b, size - pos_a))
            pos_b += size - pos_a
        blocks.append((size, pos_b, 0))
        return blocks


def file_change(path: str, base: str | None, theirs: str | None) -> ChangedFile | None:
    """The change ``base -> theirs`` of one file with its hunks; None when nothing changed."""
    if base == theirs:
        return None
    kind: ChangeKind = "create" if base is None else "delete" if theirs is None else "modify"
    a, b = lines_of(base), lines_of(theirs)
    shown = diff_lines(base), diff_lines(theirs)
    hunks: list[ChangeHunk] = []
    groups = (list(matcher(a, b).get_grouped_opcodes(CONTEXT))
              if kind == "modify" else [[("replace", 0, len(a), 0, len(b))]])
    for number, group in enumerate(groups, 1):
        edits = tuple((x1, x2, tuple(b[y1:y2])) for tag, x1, x2, y1, y2 in group
                      if tag != "equal")
        hunks.append(ChangeHunk(number, hunk_text(group, *shown), edits))
    return ChangedFile(path, kind, base, theirs, tuple(hunks))


@record
class Selection:
    """Which hunks to apply: everything, some files, or some (file, hunk) pairs."""

    files: frozenset[str] | None = None
    hunks: frozenset[tuple[str, int]] | None = None

    @classmethod
    def of_files(cls, *paths: str) -> Selection:
        return cls(files=frozenset(paths))

    @classmethod
    def of_hunks(cls, *pairs: tuple[str, int]) -> Selection:
        return cls(hunks=frozenset(pairs))

    def picks(self, path: str, index: int) -> bool:
        if self.hunks is not None:
            return (path, index) in self.hunks
        return self.files is None or path in self.files


ALL = Selection()


HunkState = Literal["clean", "conflict", "present", "refused"]


@record
class HunkStatus:
    """How one hunk stands against the working tree."""

    path: str
    index: int
    state: HunkState  # present: the working tree has it; refused: binary, outside, unreadable
    detail: str = ""  # why, for a conflict or refusal


@record
class FileMerge:
    """What merging the chosen hunks of one file comes to."""

    path: str
    write: bool  # something changes on disk: ``text`` (None = delete the file)
    text: str | None
    applied: tuple[int, ...]
    present: tuple[int, ...]
    refused: tuple[HunkStatus, ...]


def _span(start: int, end: int) -> str:
    return f"{start + 1}" if end - start <= 1 else f"{start + 1}-{end}"


class _Known:
    """Matching blocks for merge3: base -> theirs from the hunks, base -> ours diffed once."""

    def __init__(self, base: list[str], ours: list[str]) -> None:
        self.base, self.ours = base, ours

    @cached_property
    def ours_blocks(self) -> list[tuple[int, int, int]]:
        return [tuple(m) for m in  # type: ignore[misc]
                matcher(self.base, self.ours).get_matching_blocks()]

    def regions(self, theirs: list[str],
                theirs_blocks: list[tuple[int, int, int]]) -> list[tuple[object, ...]]:
        known = self

        class KnownMatcher:
            def __init__(self, isjunk: object = None, a: Sequence[str] = (),
                         b: Sequence[str] = (), autojunk: bool = False) -> None:
                self.a, self.b = a, b

            def get_matching_blocks(self) -> list[tuple[int, int, int]]:
                if self.a is known.base and self.b is theirs:
                    return theirs_blocks
                if self.a is known.base and self.b is known.ours:
                    return known.ours_blocks
                return [tuple(m) for m in  # type: ignore[misc]
                        matcher(self.a, self.b).get_matching_blocks()]

        merge = merge3.Merge3(self.base, self.ours, theirs, sequence_matcher=KnownMatcher)
        return list(merge.merge_regions())


def _conflict_detail(region: tuple[object, ...], base: list[str], ours: list[str]) -> str:
    """Which working-tree lines of a conflict region differ from the base."""
    z1, z2, a1, a2 = (int(x) for x in region[1:5])  # type: ignore[call-overload]
    changed, deleted = [], []
    for tag, i1, i2, j1, j2 in matcher(base[z1:z2], ours[a1:a2]).get_opcodes():
        if tag == "equal":
            continue
        if j2 > j1:
            changed.append(_span(a1 + j1, a1 + j2))
        else:
            deleted.append(_span(z1 + i1, z1 + i2))
    parts = []
    if changed:
        parts.append(f"working-tree lines {', '.join(changed)} changed since the snapshot")
    if deleted:
        parts.append(f"base lines {', '.join(deleted)} were deleted in the working tree since "
                     "the snapshot")
    return "; ".join(parts) + f" (the hunk touches base lines {_span(z1, z2)})"


def refuse_all(change: ChangedFile, detail: str) -> tuple[HunkStatus, ...]:
    """Every hunk of ``change`` refused for the same reason (e.g. a binary file now)."""
    return tuple(HunkStatus(change.path, h.index, "refused", detail) for h in change.hunks)


def review_file(change: ChangedFile, ours: str | None) -> tuple[HunkStatus, ...]:
    """Each hunk's standing against ``ours`` (the working-tree text now, None = absent)."""
    path = change.path
    if change.kind == "create":
        state: HunkState = ("clean" if ours is None else
                            "present" if ours == change.theirs else "conflict")
        detail = ("" if state != "conflict" else
                  "the file was created in the working tree since the snapshot, differently")
        return (HunkStatus(path, 1, state, detail),)
    if ours is None:
        why = "the file was deleted in the working tree since the snapshot"
        state = "present" if change.kind == "delete" else "conflict"
        return tuple(HunkStatus(path, h.index, state, "" if state == "present" else why)
                     for h in change.hunks)
    if change.kind == "delete":
        state = "clean" if ours == change.base else "conflict"
        detail = "" if state == "clean" else "the file changed in the working tree since the " \
                                             "snapshot"
        return (HunkStatus(path, 1, state, detail),)
    base, mine = lines_of(change.base), lines_of(ours)
    known = _Known(base, mine)
    out = []
    for hunk in change.hunks:
        regions = known.regions(change.with_hunks({hunk.index}), change.blocks_with({hunk.index}))
        conflicts = [r for r in regions if r[0] == "conflict"]
        if conflicts:
            out.append(HunkStatus(path, hunk.index, "conflict",
                                  "; ".join(_conflict_detail(r, base, mine) for r in conflicts)))
        elif any(r[0] == "b" for r in regions):
            out.append(HunkStatus(path, hunk.index, "clean"))
        else:
            out.append(HunkStatus(path, hunk.index, "present"))
    return tuple(out)


def merge_file(change: ChangedFile, ours: str | None, chosen: Iterable[int]) -> FileMerge:
    """Merge the ``chosen`` hunks into ``ours``: each judged alone, the clean ones together."""
    wanted = set(chosen)
    statuses = [s for s in review_file(change, ours) if s.index in wanted]
    clean = tuple(s.index for s in statuses if s.state == "clean")
    present = tuple(s.index for s in statuses if s.state == "present")
    refused = tuple(s for s in statuses if s.state in ("conflict", "refused"))
    if not clean:
        return FileMerge(change.path, False, ours, (), present, refused)
    if change.kind != "modify":
        return FileMerge(change.path, True, change.theirs, clean, present, refused)
    base, mine = lines_of(change.base), lines_of(ours)
    theirs = change.with_hunks(set(clean))
    merged: list[str] = []
    for region in _Known(base, mine).regions(theirs, change.blocks_with(set(clean))):
        tag, *at = region
        start, end = int(at[0]), int(at[1])  # type: ignore[call-overload]
        if tag == "unchanged":
            merged.extend(base[start:end])
        elif tag in ("a", "same"):
            merged.extend(mine[start:end])
        elif tag == "b":
            merged.extend(theirs[start:end])
        else:  # clean one by one, conflicting together: refuse them all
            together = ", ".join(str(i) for i in clean)
            refused += tuple(HunkStatus(change.path, i, "conflict",
                                        f"hunks {together} conflict with the working tree when "
                                        "applied together; apply them one at a time")
                             for i in clean)
            return FileMerge(change.path, False, ours, (), present, refused)
    return FileMerge(change.path, True, "".join(merged), clean, present, refused)

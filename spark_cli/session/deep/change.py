"""What a deep task changed, as plain data (pure): per file its base and result text and
its unified-diff hunks; any subset of a file's hunks can be laid onto the base
(`ChangedFile.with_hunks`), which is how per-hunk selection feeds the merge."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Sequence
from dataclasses import field
from typing import Literal

from spark_cli.edits.apply.diffs import diff_lines, hunk_text
from spark_cli.edits.lang.ends import lines_of
from spark_cli.record import record

ChangeKind = Literal["modify", "create", "delete"]
CONTEXT = 3


class _Matcher(difflib.SequenceMatcher[str]):
    """difflib without the "popular line" heuristic (it mis-aligns long files)."""

    def __init__(self, isjunk: Callable[[str], bool] | None = None,
                 a: Sequence[str] = "", b: Sequence[str] = "", autojunk: bool = False) -> None:
        super().__init__(None, a, b, autojunk=False)


@record
class ChangeHunk:
    """One hunk: base lines ``[base_start, base_end)`` become the lines of ``edits``."""

    index: int  # 1-based within its file
    diff: str  # unified-diff text
    base_start: int
    base_end: int
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
    groups = (list(_Matcher(None, a, b).get_grouped_opcodes(CONTEXT))
              if kind == "modify" else [[("replace", 0, len(a), 0, len(b))]])
    for number, group in enumerate(groups, 1):
        edits = tuple((x1, x2, tuple(b[y1:y2])) for tag, x1, x2, y1, y2 in group
                      if tag != "equal")
        hunks.append(ChangeHunk(number, hunk_text(group, *shown), edits[0][0], edits[-1][1],
                                edits))
    return ChangedFile(path, kind, base, theirs, tuple(hunks))


@record
class Selection:
    """Which hunks to apply: everything, some files, or some (file, hunk) pairs."""

    files: frozenset[str] | None = None
    hunks: frozenset[tuple[str, int]] | None = None

    @classmethod
    def everything(cls) -> Selection:
        return cls()

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

"""Applying edits to the working tree: one FileEdit all-or-nothing, one answer per undo batch.

`apply_edit` plans a whole file section in memory (confine the path, decode the
file, locate every hunk in order, splice, re-check the syntax) and only then
writes, once, atomically. If anything fails nothing is written and the
`EditRefused` says which hunk and why. The one exception is a conflict: when the
file on disk differs from what the model saw, hunks that still locate and do not
touch the user's changed lines apply, the rest are refused (never overwriting the
user). `Applier` wraps a whole answer: `begin_batch()`, `apply()` per block as it
arrives, `end_batch()` closes one undo checkpoint.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.atomic import remove_file, write_atomic
from spark_cli.edits.conflicts import Region, changed_regions, line_span
from spark_cli.edits.diffs import unified_diff
from spark_cli.edits.grammars import language_for_path
from spark_cli.edits.journal import BatchInfo, Journal
from spark_cli.edits.locate import LocateFailed, locate
from spark_cli.edits.outcome import EditApplied, EditOutcome, EditRefused, HunkRefused
from spark_cli.edits.paths import PathRefused, RepoPath, confine
from spark_cli.edits.syntax import check_edit
from spark_cli.edits.textfile import (
    DEFAULT_SIZE_LIMIT,
    TextFile,
    TextFileError,
    decode,
    new_text_file,
)

if TYPE_CHECKING:
    from spark_cli.edits.blocks import FileEdit, Hunk
    from spark_cli.edits.syntax import SyntaxVerdict

_NEWLINES = re.compile(r"\r\n|\r")


@dataclass(slots=True)
class _Write:
    target: RepoPath
    before: bytes | None
    before_mode: int | None
    after: bytes | None
    after_mode: int | None


@dataclass(slots=True)
class _Plan:
    outcome: EditApplied
    writes: list[_Write] = field(default_factory=list)
    new_text: str | None = None
    conflicted: bool = False  # the file on disk differed from what the model saw


class _Refusal(Exception):
    def __init__(self, reason: str, message: str, hunk_index: int | None = None, line: int = 0,
                 refused: tuple[HunkRefused, ...] = (),
                 syntax: SyntaxVerdict | None = None) -> None:
        super().__init__(message)
        self.reason, self.message, self.hunk_index, self.line = reason, message, hunk_index, line
        self.refused, self.syntax = refused, syntax


def _read(target: RepoPath, name: str, size_limit: int) -> tuple[bytes, TextFile]:
    path = target.path
    if not path.exists():
        raise _Refusal("file_missing", f"{name}: file not found")
    if path.is_dir():
        raise _Refusal("is_directory", f"{name} is a directory, not a file")
    try:
        st = path.stat()
        if st.st_size > size_limit:
            raise TextFileError(
                f"{name} is too large to edit ({st.st_size:,} bytes; the limit is "
                f"{size_limit:,})", "too_large")
        data = path.read_bytes()
        return data, decode(data, mode=st.st_mode & 0o7777, name=name, size_limit=size_limit)
    except TextFileError as exc:
        raise _Refusal(exc.reason, exc.message) from None


def _is_append(hunk: Hunk) -> bool:
    return not hunk.search and not hunk.anchors


def _locate_all(work: str, edit: FileEdit, regions: list[Region] | None,
                language: str | None) -> tuple[list[tuple[int, int, str, str]], list[HunkRefused]]:
    """Locate each hunk in order; returns (splices with their step, refused hunks)."""
    spans: list[tuple[int, int, str, str]] = []
    refused: list[HunkRefused] = []
    position = 0
    for index, hunk in enumerate(edit.hunks, 1):
        line = hunk.line or edit.line
        if _is_append(hunk):
            start = end = len(work)
            replacement, step = hunk.replace, "append"
        else:
            try:
                found = locate(work, hunk, language=language, search_from=position)
            except LocateFailed as first:
                found = None
                if position:  # hunks given out of order: try the whole file
                    try:
                        found = locate(work, hunk, language=language, search_from=0)
                    except LocateFailed:
                        found = None
                if found is None:
                    refused.append(HunkRefused(index, line, first.reason,
                                               f"hunk {index} (edit line {line}): {first.message}"))
                    continue
            start, end, replacement, step = found.start, found.end, found.replacement, found.step
        clash = next((s for s in spans if start < s[1] and s[0] < end), None)
        if clash is not None:
            refused.append(HunkRefused(index, line, "overlap",
                                       f"hunk {index} (edit line {line}) overlaps an earlier hunk "
                                       "of the same file; merge them into one hunk"))
            continue
        if regions:
            first_line, last_line = line_span(work, start, end)
            touched = next((r for r in regions if r.overlaps(first_line, last_line)), None)
            if touched is not None:
                refused.append(HunkRefused(
                    index, line, "conflict",
                    f"the file changed on disk since the model read it; hunk {index} touches "
                    f"{touched.describe()}, which the user edited: re-read the file and redo "
                    "this hunk"))
                continue
        spans.append((start, end, replacement, step))
        position = end
    return spans, refused


def _refusal_message(path: str, refused: list[HunkRefused], total: int) -> str:
    head = "; ".join(h.message for h in refused)
    return (f"{path}: {len(refused)} of {total} hunk(s) failed, so nothing in this file was "
            f"changed: {head}")


def _check_syntax(name: str, old: str, new: str, allow: bool) -> SyntaxVerdict | None:
    verdict, _tree = check_edit(name, old, new)
    if verdict.checked and not verdict.ok and not allow:
        raise _Refusal(
            "syntax",
            f"{verdict.message}; the file was left untouched. Send a corrected block.",
            syntax=verdict)
    return verdict


def _plan_create(edit: FileEdit, target: RepoPath, allow: bool, mode: int | None = None) -> _Plan:
    text = "".join(h.replace for h in edit.hunks)
    verdict = _check_syntax(edit.path, "", text, allow)
    after = new_text_file(text).encode()
    outcome = EditApplied(target.rel, len(edit.hunks), unified_diff(target.rel, None, text),
                          ("create",) * len(edit.hunks), verdict, created=True, line=edit.line)
    return _Plan(outcome, [_Write(target, None, None, after, mode)], text)


def _plan_update(edit: FileEdit, target: RepoPath, seen: str | None, allow: bool,
                 size_limit: int) -> _Plan:
    before, tf = _read(target, edit.path, size_limit)
    text = tf.text
    pad = bool(text) and not text.endswith("\n")
    work = tf.replaced(text + "\n", (*tf.endings, tf.dominant)) if pad else tf
    regions = changed_regions(seen, text) if seen is not None and seen != text else None
    spans, refused = _locate_all(work.text, edit, regions, language_for_path(edit.path))
    if refused and (not regions or not spans):
        first = refused[0]
        reason = "conflict" if regions and first.reason != "conflict" else first.reason
        message = _refusal_message(target.rel, refused, len(edit.hunks))
        if regions and first.reason != "conflict":
            message += " (note: the file changed on disk since the model read it)"
        raise _Refusal(reason, message, first.hunk_index, first.line, tuple(refused))
    result = work.spliced(sorted((s, e, r) for s, e, r, _ in spans))
    if pad and result.text.endswith("\n"):
        result = result.replaced(result.text[:-1], result.endings[:-1])
    verdict = _check_syntax(edit.path, text, result.text, allow)
    diff = unified_diff(target.rel, text, result.text)
    outcome = EditApplied(target.rel, len(spans), diff, tuple(s[3] for s in spans), verdict,
                          refused=tuple(refused), line=edit.line)
    writes = [] if result.text == text else [
        _Write(target, before, tf.mode, result.encode(), tf.mode)]
    return _Plan(outcome, writes, result.text, conflicted=regions is not None)


def _plan(edit: FileEdit, root: Path, seen: Mapping[str, str] | None, allow: bool,
          size_limit: int) -> _Plan:
    target = confine(root, edit.path)
    seen_text = None
    if seen is not None:
        raw = seen.get(target.rel, seen.get(edit.path))
        seen_text = None if raw is None else _NEWLINES.sub("\n", raw)
    exists = target.path.exists() or target.path.is_symlink()
    if edit.kind == "add" or (edit.kind == "update" and not exists
                              and edit.hunks and all(_is_append(h) for h in edit.hunks)):
        if exists and edit.fmt == "search_replace" and not target.path.is_dir():
            return _plan_update(edit, target, seen_text, allow, size_limit)  # empty SEARCH appends
        if exists:
            raise _Refusal("exists", f"{edit.path} already exists; to change it, use an update "
                           "with the lines to replace instead of adding the file")
        return _plan_create(edit, target, allow)
    if edit.kind == "delete":
        if not exists:
            raise _Refusal("file_missing", f"{edit.path}: cannot delete, the file does not exist")
        if target.path.is_dir():
            raise _Refusal("is_directory", f"{edit.path} is a directory; only files are deleted")
        data = target.path.read_bytes()
        try:
            old_text: str | None = decode(data, size_limit=max(size_limit, len(data))).text
        except TextFileError:
            old_text = None
        diff = unified_diff(target.rel, old_text, None) if old_text is not None else (
            f"--- a/{target.rel}\n+++ /dev/null\nBinary file deleted\n")
        mode = target.path.stat().st_mode & 0o7777
        outcome = EditApplied(target.rel, 0, diff, (), None, deleted=True, line=edit.line)
        return _Plan(outcome, [_Write(target, data, mode, None, None)])
    if not exists:
        hint = ("use an empty SEARCH section to create it" if edit.fmt == "search_replace"
                else "use '*** Add File:' to create it")
        raise _Refusal("file_missing", f"{edit.path}: file not found; {hint}")
    plan = _plan_update(edit, target, seen_text, allow, size_limit)
    if edit.move_to:
        return _plan_move(edit, root, target, plan)
    return plan


def _plan_move(edit: FileEdit, root: Path, source: RepoPath, plan: _Plan) -> _Plan:
    assert edit.move_to is not None
    dest = confine(root, edit.move_to)
    if dest.rel == source.rel:
        return plan
    if dest.path.exists() or dest.path.is_symlink():
        raise _Refusal("exists", f"cannot move {edit.path} to {edit.move_to}: the target "
                       "already exists")
    data = source.path.read_bytes()
    mode = source.path.stat().st_mode & 0o7777
    after = plan.writes[0].after if plan.writes else data
    old = plan.outcome
    text = plan.new_text or ""
    diff = unified_diff(dest.rel, decode(data).text, text, old_path=source.rel)
    outcome = EditApplied(dest.rel, old.hunks, diff, old.step_per_hunk, old.syntax,
                          moved_from=source.rel, refused=old.refused, line=edit.line)
    writes = [_Write(dest, None, None, after, mode), _Write(source, data, mode, None, None)]
    return _Plan(outcome, writes, text, plan.conflicted)


def _commit(writes: list[_Write], journal: Journal | None) -> None:
    for write in writes:
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


def apply_edit(edit: FileEdit, root: Path, *, seen: Mapping[str, str] | None = None,
               allow_syntax_errors: bool = False, dry_run: bool = False,
               journal: Journal | None = None,
               size_limit: int = DEFAULT_SIZE_LIMIT) -> EditOutcome:
    """Apply one file section whole (or, under a conflict, the hunks that are safe)."""
    outcome, _text, _conflicted = _apply(edit, Path(root), seen, allow_syntax_errors, dry_run,
                                         journal, size_limit)
    return outcome


def _apply(edit: FileEdit, root: Path, seen: Mapping[str, str] | None, allow: bool,
           dry_run: bool, journal: Journal | None,
           size_limit: int) -> tuple[EditOutcome, str | None, bool]:
    try:
        plan = _plan(edit, root, seen, allow, size_limit)
        if dry_run:
            return replace(plan.outcome, dry_run=True), plan.new_text, plan.conflicted
        _commit(plan.writes, journal)
        return plan.outcome, plan.new_text, plan.conflicted
    except PathRefused as exc:
        return EditRefused(edit.path, exc.reason, None, exc.message, edit.line), None, False
    except _Refusal as exc:
        return EditRefused(edit.path, exc.reason, exc.hunk_index, exc.message,
                           exc.line or edit.line, exc.syntax, exc.refused), None, False
    except OSError as exc:
        return EditRefused(edit.path, "io", None,
                           f"{edit.path}: could not write ({exc.strerror or exc}); "
                           "nothing was changed", edit.line), None, False


class Applier:
    """Applies the blocks of one answer as they arrive, as one undo batch."""

    def __init__(self, root: Path, *, seen: Mapping[str, str] | None = None,
                 allow_syntax_errors: bool = False, dry_run: bool = False,
                 record_undo: bool = True, size_limit: int = DEFAULT_SIZE_LIMIT) -> None:
        self.root = Path(root)
        self.seen: dict[str, str] | None = dict(seen) if seen is not None else None
        self.allow_syntax_errors = allow_syntax_errors
        self.dry_run = dry_run
        self.size_limit = size_limit
        self.journal = Journal(self.root) if record_undo and not dry_run else None
        self.outcomes: list[EditOutcome] = []

    def begin_batch(self, label: str = "") -> None:
        self.outcomes = []
        if self.journal is not None:
            self.journal.begin(label)

    def apply(self, edit: FileEdit) -> EditOutcome:
        outcome, text, conflicted = _apply(edit, self.root, self.seen,
                                           self.allow_syntax_errors, self.dry_run, self.journal,
                                           self.size_limit)
        self.outcomes.append(outcome)
        if isinstance(outcome, EditApplied) and self.seen is not None and not conflicted:
            # our own write is not a user change: later blocks of this answer see it
            if outcome.moved_from:
                self.seen.pop(outcome.moved_from, None)
            if outcome.deleted or text is None:
                self.seen.pop(outcome.path, None)
            else:
                self.seen[outcome.path] = text
        return outcome

    def end_batch(self) -> BatchInfo | None:
        return self.journal.end() if self.journal is not None else None

    @property
    def all_applied(self) -> bool:
        return all(isinstance(o, EditApplied) and not o.partial for o in self.outcomes)

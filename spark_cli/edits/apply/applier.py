"""Applying edits: each FileEdit planned whole in memory, then written once, atomically;
on any failure nothing is written, except that under a conflict the hunks clear of the
user's changes apply. `Applier` wraps one answer as one undo batch."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.apply.diffs import unified_diff
from spark_cli.edits.apply.repeats import Repeats
from spark_cli.edits.disk.journal import BatchInfo, Journal, clean_stale_temps
from spark_cli.edits.disk.paths import (
    MAX_CANDIDATES,
    RepoPath,
    confine,
    expand_short_name,
    repo_suffix,
)
from spark_cli.edits.disk.textfile import (
    DEFAULT_SIZE_LIMIT,
    TextFile,
    decode,
    new_text_file,
    too_large,
)
from spark_cli.edits.disk.worktree import WorkTree, Write
from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.lang.syntax import check_edit
from spark_cli.edits.locate.placement import Span, changed_regions, is_append, lf, locate_all
from spark_cli.edits.model.outcome import (
    EditApplied,
    EditOutcome,
    FileRefused,
    RefusedEdit,
    SyntaxVerdict,
)

if TYPE_CHECKING:
    from spark_cli.edits.model.blocks import FileEdit


@dataclass(slots=True)
class _Plan:
    """What applying one block will do: its outcome and the writes it needs."""

    outcome: EditApplied
    writes: list[Write] = field(default_factory=list)
    new_text: str | None = None
    conflicted: bool = False  # the file on disk differed from what the model saw


@dataclass(slots=True)
class _Context:
    """What every block of one apply call shares: the root, the tree, the rules."""

    root: Path
    tree: WorkTree
    seen: Mapping[str, str] | None
    allow_syntax_errors: bool
    size_limit: int
    write_read_only: bool  # the user forces writes to files without write bits
    journal: Journal | None
    in_order: bool = False  # identical hunks, one per place: several matches are not ambiguous


def _read(ctx: _Context, target: RepoPath, name: str) -> tuple[bytes, TextFile]:
    """The bytes and text of a file that exists (`_plan` checked)."""
    if ctx.tree.is_dir(target.path):
        raise FileRefused(f"{name} is a directory, not a file", "is_directory")
    size = ctx.tree.size(target.path)
    if size > ctx.size_limit:
        raise too_large(name, size, ctx.size_limit)
    state = ctx.tree.read(target.path)
    return state.data, decode(state.data, mode=state.mode, name=name, size_limit=ctx.size_limit)


def _writable(ctx: _Context, name: str, mode: int | None, verb: str) -> None:
    """Refuse to change a file without a write bit (users mark files read-only to protect them)."""
    if mode is None or mode & 0o222 or ctx.write_read_only:
        return
    raise FileRefused(f"{name} is read-only (mode {mode:04o}), so spark did not {verb} it: "
                      "the user protects it. Leave this file alone (the user can make it "
                      "writable, or run spark apply with --force-read-only)", "read_only")


def _hunk_at_line(work: str, spans: list[Span], line: int | None) -> Span | None:
    """The hunk whose replacement covers 1-based ``line`` of the new text, if any."""
    if line is None:
        return None
    shift = 0
    for span in sorted(spans, key=lambda s: s.start):
        first = work.count("\n", 0, span.start) + shift
        count = span.replacement.count("\n")
        if first + 1 <= line <= first + max(count, 1) + 1:
            return span
        shift += count - work.count("\n", span.start, span.end)
    return None


def _check_syntax(ctx: _Context, name: str, old: str, new: str,
                  blame: tuple[str, list[Span], FileEdit] | None = None) -> SyntaxVerdict:
    verdict, _tree = check_edit(name, old, new)
    if verdict.checked and not verdict.ok and not ctx.allow_syntax_errors:
        culprit = _hunk_at_line(blame[0], blame[1], verdict.error_line) if blame else None
        index = culprit.index if culprit else None
        line = 0
        prefix = ""
        if culprit is not None and blame is not None:
            line = blame[2].hunks[culprit.index - 1].line or blame[2].line
            prefix = f"hunk {culprit.index} (edit line {line}): "
        raise FileRefused(f"{prefix}{verdict.message}; the file was left untouched. Send a "
                          "corrected block.", "syntax", index, line, syntax=verdict)
    return verdict


def _plan_create(ctx: _Context, edit: FileEdit, target: RepoPath) -> _Plan:
    text = lf("".join(h.replace for h in edit.hunks))
    verdict = _check_syntax(ctx, edit.path, "", text)
    after = new_text_file(text).encode()
    outcome = EditApplied(target.rel, len(edit.hunks), unified_diff(target.rel, None, text),
                          ("create",) * len(edit.hunks), verdict, created=True, line=edit.line)
    return _Plan(outcome, [Write(target, None, None, after, None)], text)


def _plan_update(ctx: _Context, edit: FileEdit, target: RepoPath, seen: str | None) -> _Plan:
    before, tf = _read(ctx, target, edit.path)
    text = tf.text
    pad = bool(text) and not text.endswith("\n")  # locate in "\n"-terminated text
    work = tf.replaced(text + "\n", (*tf.endings, tf.dominant)) if pad else tf
    regions = changed_regions(seen, text) if seen is not None and seen != text else None
    spans, refused = locate_all(work.text, edit, regions, language_for_path(edit.path),
                                 seen, ctx.in_order)
    if refused and (not regions or not spans):
        first = refused[0]
        head = "; ".join(h.message for h in refused)
        message = (f"{target.rel}: {len(refused)} of {len(edit.hunks)} hunk(s) failed, so "
                   f"nothing in this file was changed: {head}")
        reason = first.reason
        if regions and first.reason != "conflict":
            reason = "conflict"
            message += " (note: the file changed on disk since the model read it)"
        raise FileRefused(message, reason, first.hunk_index, first.line, tuple(refused))
    ordered = sorted(spans, key=lambda s: (s.start, s.end, s.index))
    result = work.spliced([(s.start, s.end, s.replacement) for s in ordered])
    if pad and result.text.endswith("\n"):
        result = result.replaced(result.text[:-1], result.endings[:-1])
    verdict = _check_syntax(ctx, edit.path, text, result.text, (work.text, spans, edit))
    outcome = EditApplied(target.rel, len(spans), unified_diff(target.rel, text, result.text),
                          tuple(s.step for s in spans), verdict, refused=tuple(refused),
                          line=edit.line)
    writes = [] if result.text == text else [
        Write(target, before, tf.mode, result.encode(), tf.mode)]
    if writes:
        _writable(ctx, target.rel, tf.mode, "change")
    return _Plan(outcome, writes, result.text, conflicted=regions is not None)


def _plan_delete(ctx: _Context, edit: FileEdit, target: RepoPath) -> _Plan:
    if ctx.tree.is_dir(target.path):
        raise FileRefused(f"{edit.path} is a directory; only files are deleted", "is_directory")
    state = ctx.tree.read(target.path)
    _writable(ctx, target.rel, state.mode, "delete")
    try:
        old_text = decode(state.data, size_limit=max(ctx.size_limit, len(state.data))).text
        diff = unified_diff(target.rel, old_text, None)
    except FileRefused:
        diff = f"--- a/{target.rel}\n+++ /dev/null\nBinary file deleted\n"
    outcome = EditApplied(target.rel, 0, diff, (), None, deleted=True, line=edit.line)
    return _Plan(outcome, [Write(target, state.data, state.mode, None, None)])


def _plan_move(ctx: _Context, edit: FileEdit, source: RepoPath, plan: _Plan) -> _Plan:
    assert edit.move_to is not None
    dest = confine(ctx.root, edit.move_to)
    if dest.rel == source.rel:
        return plan
    if ctx.tree.exists(dest.path):
        raise FileRefused(f"cannot move {edit.path} to {edit.move_to}: the target already "
                          "exists", "exists")
    state = ctx.tree.read(source.path)
    _writable(ctx, source.rel, state.mode, "move")
    after = plan.writes[0].after if plan.writes else state.data
    old, text = plan.outcome, plan.new_text or ""
    old_text = decode(state.data, size_limit=ctx.size_limit).text  # the section's limit
    diff = unified_diff(dest.rel, old_text, text, old_path=source.rel)
    outcome = EditApplied(dest.rel, old.hunks, diff, old.step_per_hunk, old.syntax,
                          moved_from=source.rel, refused=old.refused, line=edit.line)
    writes = [Write(dest, None, None, after, state.mode),
              Write(source, state.data, state.mode, None, None)]
    return _Plan(outcome, writes, text, plan.conflicted)


def _plan(ctx: _Context, edit: FileEdit) -> _Plan:
    try:
        target = confine(ctx.root, edit.path)
    except FileRefused:
        inside = repo_suffix(ctx.root, edit.path) if edit.kind == "update" else None
        if inside is None:
            raise
        plan = _plan(ctx, replace(edit, path=inside))
        plan.outcome = replace(plan.outcome, note=f"{edit.path} taken as {inside}, the "
                               "repo's file at the end of that absolute path")
        return plan
    seen_text = None
    if ctx.seen is not None:
        raw = ctx.seen.get(target.rel, ctx.seen.get(edit.path))
        seen_text = None if raw is None else lf(raw)
    exists = ctx.tree.exists(target.path)
    creating = edit.kind == "update" and not exists and bool(edit.hunks) and all(
        is_append(h) for h in edit.hunks)
    if edit.kind == "add" or creating:
        if exists and ctx.tree.is_dir(target.path):
            raise FileRefused(f"{edit.path} is a directory; name the file to create inside "
                              "it", "is_directory")
        if exists and edit.fmt == "search_replace":
            return _plan_update(ctx, edit, target, seen_text)  # empty SEARCH appends
        if exists:
            raise FileRefused(f"{edit.path} already exists; to change it, use an update with "
                              "the lines to replace instead of adding the file", "exists")
        return _plan_create(ctx, edit, target)
    if not exists:
        return _plan_short_name(ctx, edit, target)
    if edit.kind == "delete":
        return _plan_delete(ctx, edit, target)
    plan = _plan_update(ctx, edit, target, seen_text)
    return _plan_move(ctx, edit, target, plan) if edit.move_to else plan


def _plan_short_name(ctx: _Context, edit: FileEdit, target: RepoPath) -> _Plan:
    """An update of a file that does not exist: the one file its path abbreviates, if any."""
    shown = ctx.seen.keys() if ctx.seen is not None else ()
    found = expand_short_name(ctx.root, target.rel, shown)
    if len(found) == 1 and edit.kind == "update":
        plan = _plan(ctx, replace(edit, path=found[0]))
        note = f"{edit.path} taken as {found[0]}, the only file with that path"
        plan.outcome = replace(plan.outcome, note=note)
        return plan
    if found:
        listed = ", ".join(found[:MAX_CANDIDATES])
        raise FileRefused(f"{edit.path}: file not found; did you mean "
                          f"{'one of ' if len(found) > 1 else ''}{listed}? Use the full path "
                          "from the repo root", "file_missing")
    if edit.kind == "delete":
        raise FileRefused(f"{edit.path}: cannot delete, the file does not exist",
                          "file_missing")
    hint = ("use an empty SEARCH section to create it" if edit.fmt == "search_replace"
            else "use '*** Add File:' to create it")
    raise FileRefused(f"{edit.path}: file not found; {hint}", "file_missing")


def _apply(ctx: _Context, edit: FileEdit) -> tuple[EditOutcome, str | None, bool]:
    """(outcome, the file's new "\\n" text or None, whether the user had changed the file)."""
    try:
        plan = _plan(ctx, edit)
        ctx.tree.commit(plan.writes, ctx.journal)
        outcome = replace(plan.outcome, dry_run=True) if ctx.tree.dry_run else plan.outcome
        return outcome, plan.new_text, plan.conflicted
    except FileRefused as exc:
        return RefusedEdit(edit.path, exc.reason, exc.hunk_index, exc.message,
                           exc.line or edit.line, exc.syntax, exc.refused), None, False
    except OSError as exc:
        return RefusedEdit(edit.path, "io", None,
                           f"{edit.path}: could not write ({exc.strerror or exc}); "
                           "nothing was changed", edit.line), None, False


class Applier:
    """Applies the blocks of one answer as they arrive, as one undo batch (``undo_dir``)."""

    def __init__(self, root: Path, *, seen: Mapping[str, str] | None = None,
                 allow_syntax_errors: bool = False, dry_run: bool = False,
                 undo_dir: Path | None = None, size_limit: int = DEFAULT_SIZE_LIMIT,
                 write_read_only: bool = False) -> None:
        self.root = Path(root)
        folder = None if dry_run else undo_dir
        self.cleaned = clean_stale_temps(self.root, folder) if folder is not None else []
        self.seen: dict[str, str] | None = dict(seen) if seen is not None else None
        self.journal = Journal(self.root, folder) if folder is not None else None
        self.outcomes: list[EditOutcome] = []
        self._ctx = _Context(self.root, WorkTree(dry_run=dry_run), self.seen,
                             allow_syntax_errors, size_limit, write_read_only, self.journal)
        self._repeats = Repeats()

    def begin_batch(self, label: str = "") -> None:
        self.outcomes = []
        self._repeats = Repeats()
        if self.journal is not None:
            self.journal.begin(label)

    def apply(self, edit: FileEdit) -> EditOutcome:
        duplicate = self._repeats.duplicate(edit)
        if duplicate is not None:
            self.outcomes.append(duplicate)
            return duplicate
        outcome, text, conflicted = _apply(self._ctx, edit)
        if isinstance(outcome, RefusedEdit) and outcome.reason == "ambiguous":
            in_order = replace(self._ctx, in_order=True)
            outcome, text, conflicted = self._repeats.identical_copies(
                edit, outcome, len(self.outcomes), lambda e: _apply(in_order, e),
                (outcome, text, conflicted))
        self._repeats.note(edit, outcome)
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
    def refused_count(self) -> int:
        """Refused sections, not counting copies a later identical block superseded."""
        return sum(1 for k, o in enumerate(self.outcomes)
                   if isinstance(o, RefusedEdit) and k not in self._repeats.superseded)

    @property
    def all_applied(self) -> bool:
        return all((isinstance(o, EditApplied) and not o.partial) or k in self._repeats.superseded
                   for k, o in enumerate(self.outcomes))

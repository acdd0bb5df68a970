"""An answer asked for an edit that held none: applied whole where that is safe, else said;
imported only for such a run."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.formats.whole_file import NoEdit, no_edit, whole_file_text
from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.lang.syntax import first_error, parse_text
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.edits.model.outcome import EditApplied, FileRefused
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.events import EditLanded, EditRefused

if TYPE_CHECKING:
    from spark_cli.cli.edit.turn_result import TurnResult
    from spark_cli.render.renderer import Renderer
    from spark_cli.session.config.settings import Settings

CAP_REASON = "max_output_tokens"


def _sent_texts(root: Path, files: Sequence[str]) -> dict[str, str]:
    texts: dict[str, str] = {}
    for path in files:
        try:
            texts[path] = read_text_file(root / path).text
        except (OSError, FileRefused):
            continue
    return texts


def settle(result: TurnResult, settings: Settings, root: Path, files: Sequence[str],
           renderer: Renderer, *, dry_run: bool) -> None:
    """Apply a whole-file answer, or mark ``result.no_edit`` (exit 5) with what the answer held.

    Only one small file sent, and a fenced new version tree-sitter accepts (aider's "whole")."""

    completed = result.completed
    if completed is None or completed.status not in ("completed", "incomplete"):
        return
    texts = _sent_texts(root, files)
    if completed.status == "completed" and len(texts) == 1 and _apply_whole(
            result, settings, root, texts, renderer, dry_run=dry_run):
        return
    if completed.reason == CAP_REASON:
        result.no_edit = NoEdit("cut", "the answer stopped at the output cap before any edit "
                                "block")
        return
    result.no_edit = no_edit(result.answer, settings.edit_format, texts, tools=result.tools)


def _apply_whole(result: TurnResult, settings: Settings, root: Path, texts: dict[str, str],
                 renderer: Renderer, *, dry_run: bool) -> bool:
    """Apply the fenced whole file to the one file sent; False when it may not replace it."""

    ((path, old),) = texts.items()
    language = language_for_path(path)
    new = whole_file_text(result.answer, old,
                          lambda text: language is None or parses(language, text))
    if new is None:
        return False
    applier = Applier(root, seen={path: old}, dry_run=dry_run, undo_dir=undo_dir(root),
                      allow_syntax_errors=settings.allow_syntax_errors)
    applier.begin_batch("whole file from the answer")
    try:
        outcome = applier.apply(FileEdit("update", path, (Hunk(old, new),), "search_replace"))
    finally:
        applier.end_batch()
    renderer.note(f"{path}: the answer held the whole file in a fence and no edit block; "
                  "applied it as a whole-file replacement")
    result.outcomes.append(outcome)
    if isinstance(outcome, EditApplied):
        renderer.event(EditLanded(outcome))
        result.texts[path] = new
    else:
        renderer.event(EditRefused(outcome))
    return True


def parses(language: str, text: str) -> bool:
    """tree-sitter parses ``text`` cleanly (a language without a grammar counts as parsing)."""

    try:
        tree = parse_text(language, text)
    except (LookupError, ImportError):
        return True
    return first_error(tree, language) is None


def closing_lines(result: TurnResult, settings: Settings) -> list[str]:
    """The end-of-run lines for a run with no edit and for an answer cut at the output cap."""
    lines: list[str] = []
    if result.no_edit is not None:
        lines.append(f"spark edit: no edit: {result.no_edit.message} (exit 5)")
    completed = result.completed
    if completed is not None and completed.reason == CAP_REASON:
        lines.append(
            f"spark edit: the answer stopped at the output cap (max_output_tokens = "
            f"{settings.max_output_tokens:,} tokens); raise it with --max-output-tokens N or "
            "max_output_tokens in .spark/config.toml")
    return lines

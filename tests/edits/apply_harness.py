"""Apply one file section on its own, as the tests of single sections need it: a fresh
`Applier` that records no undo batch."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.blocks import FileEdit
from spark_cli.edits.model.outcome import EditOutcome


def apply_one(edit: FileEdit, root: Path, *, seen: Mapping[str, str] | None = None,
              allow_syntax_errors: bool = False, dry_run: bool = False,
              size_limit: int | None = None) -> EditOutcome:
    options = {} if size_limit is None else {"size_limit": size_limit}
    return Applier(root, seen=seen, allow_syntax_errors=allow_syntax_errors, dry_run=dry_run,
                   **options).apply(edit)

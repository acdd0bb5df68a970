"""The turn's Applier, made only once the request has left (its imports overlap the model's TTFT).

:meth:`prime` also parses the files the request sent, so the first edit's syntax check is
an incremental re-parse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from spark_cli.session.config.state_dir import undo_dir

if TYPE_CHECKING:
    from spark_cli.edits.apply.applier import Applier
    from spark_cli.edits.disk.journal import BatchInfo


PRIME_BYTES = 256 * 1024
"""Text parsed ahead per turn: a few ms of the model's TTFT, never a long stall."""


class LazyApplier:
    """One turn's undo batch and Applier, made on first use."""

    def __init__(self, root: Path, seen: Mapping[str, str], label: str, *,
                 allow_syntax_errors: bool, dry_run: bool, sent: Sequence[str] = ()) -> None:
        self._args = (root, seen, allow_syntax_errors, dry_run)
        self._label = label
        self._applier: Applier | None = None
        self._sent = tuple(sent)

    def get(self) -> Applier:
        applier = self._applier
        if applier is None:
            from spark_cli.edits.apply.applier import Applier  # deferred: launch -> request

            root, seen, allow_syntax_errors, dry_run = self._args
            applier = self._applier = Applier(
                root, seen=seen, allow_syntax_errors=allow_syntax_errors, dry_run=dry_run,
                undo_dir=undo_dir(root))
            applier.begin_batch(self._label)
        return applier

    def prime(self) -> None:
        """Parse the files this turn sent (at most ``PRIME_BYTES`` of them), once."""
        sent, self._sent = self._sent, ()
        if not sent:
            return
        from spark_cli.edits.lang.syntax import prime  # deferred: launch -> request

        seen, budget = self._args[1], PRIME_BYTES
        for path in sent:
            text = seen.get(path)
            if text is None or len(text) > budget:
                continue
            budget -= len(text)
            prime(path, text)

    def end(self) -> BatchInfo | None:
        """Close the turn's undo batch; it, or None when nothing was written."""
        return self._applier.end_batch() if self._applier is not None else None

    @property
    def outcomes(self) -> list[Any]:
        return self._applier.outcomes if self._applier is not None else []

    @property
    def refused_count(self) -> int:
        return self._applier.refused_count if self._applier is not None else 0

    @property
    def seen(self) -> dict[str, str] | None:
        return self._applier.seen if self._applier is not None else None

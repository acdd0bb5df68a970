"""What one `spark edit` turn came to, and its exit code (docs/cli.md): 0 applied, 1 refused,
2 usage, 3 provider, 4 tests failed, 5 no edit, 124 timeout, 128 + n signal n."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING

from spark_cli.edits.model.outcome import EditApplied, EditOutcome

if TYPE_CHECKING:
    from spark_cli.edits.formats.whole_file import NoEdit
    from spark_cli.session.events import TurnCompleted, TurnFailed

EXIT_OK, EXIT_REFUSED, EXIT_USAGE, EXIT_PROVIDER, EXIT_TESTS, EXIT_NO_EDIT = 0, 1, 2, 3, 4, 5
EXIT_TIMEOUT = 124  # as timeout(1) reports it
USAGE_FAILURES = frozenset({"context_length", "usage", "request", "too_large", "binary",
                            "encoding", "budget", "not_found_file", "path"})
"""``TurnFailed.kind`` values that are the caller's to fix (exit 2), not the provider's."""


class TurnResult:
    """What one turn came to, for the end diff, the summary and the exit code."""

    __slots__ = ("answer", "completed", "failure", "interrupted", "marks", "no_edit", "outcomes",
                 "rejected", "signal", "texts", "timed_out", "tools")

    def __init__(self) -> None:
        self.outcomes: list[EditOutcome] = []
        self.rejected = 0
        self.completed: TurnCompleted | None = None
        self.failure: TurnFailed | None = None
        self.marks: dict[str, float | None] = {}
        self.interrupted = False
        """Ctrl-C (or SIGTERM, SIGHUP) ended the turn early (exit 128 + ``signal``)."""
        self.signal: int = signal.SIGINT
        self.texts: dict[str, str] = {}
        """path -> the text after the turn as the session knows it (a dry run's result)."""
        self.answer = ""
        self.tools: tuple[str, ...] = ()
        """The tools the model called in the turn, by name, in order."""
        self.no_edit: NoEdit | None = None
        """Set when the answer held no edit block (exit 5): what it held instead."""
        self.timed_out = False
        """``--timeout`` ran out and stopped the turn (``interrupted`` is set too)."""

    @property
    def applied(self) -> int:
        return sum(1 for o in self.outcomes if o.ok)

    @property
    def refused(self) -> int:
        return sum(1 for o in self.outcomes
                   if not isinstance(o, EditApplied) or o.partial) + self.rejected

    def exit_code(self) -> int:
        if self.timed_out:
            return EXIT_TIMEOUT
        if self.interrupted:
            return 128 + int(self.signal)
        if self.failure is not None:
            return EXIT_USAGE if self.failure.kind in USAGE_FAILURES else EXIT_PROVIDER
        if self.refused:
            return EXIT_REFUSED
        return EXIT_NO_EDIT if self.no_edit is not None else EXIT_OK

"""The files every turn sends in full (``/add``, ``/drop``, ``/files``, ``@path``); the
session's ``ContextSet`` is made on first use (its imports would delay the first frame)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from spark_cli.session.context.targets import ContextSet

_MENTION = re.compile(r"(?:^|\s)@([^\s@]+)")


def mentioned_paths(text: str, root: Path) -> list[str]:
    """The ``@path`` mentions in ``text`` that name a file under ``root``, in order."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        path = match.group(1).rstrip(".,;:!?)")
        if path not in found and (root / path).is_file():
            found.append(path)
    return found


class ContextFiles:
    """The context set of ``root``, made when first needed."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._set: ContextSet | None = None

    def get(self) -> ContextSet:
        if self._set is None:
            from spark_cli.session.context.targets import ContextSet  # deferred: TUI launch

            self._set = ContextSet(self.root)
        return self._set

    def files(self) -> tuple[str, ...]:
        """The added files, in order (none before the first ``add``)."""
        return self._set.files() if self._set is not None else ()

    def add(self, path: str) -> str | None:
        """Add ``path``; the problem when it cannot be sent."""
        return self.get().add(path)

    def drop(self, path: str) -> str | None:
        return self.get().drop(path)

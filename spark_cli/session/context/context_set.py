"""The files a user put in the context (the TUI's ``/add``, ``/drop``, ``/files``)."""

from __future__ import annotations

from pathlib import Path

from spark_cli.edits.disk.paths import confine
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.tools.repo_files import ignore_rules


class ContextSet:
    """The user's chosen files (root-relative, in the order added); read when a turn is built."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        self._files: list[str] = []

    def files(self) -> tuple[str, ...]:
        return tuple(self._files)

    def add(self, path: str) -> str | None:
        """``None`` when ``path`` is in, else why it was refused (outside, ignored, binary...)."""
        try:
            where = confine(self.root, path)
        except FileRefused as exc:
            return exc.message
        if not where.path.exists():
            return f"{path}: no such file"
        if where.path.is_dir():
            return f"{path} is a directory: add the files in it one by one"
        why = ignore_rules(self.root).ignored(where.rel)
        if why is not None:
            return f"{where.rel} is left out of the context: {why}"
        try:
            read_text_file(where.path, name=where.rel)
        except FileRefused as exc:
            return exc.message
        except OSError as exc:
            return f"{where.rel}: cannot read ({exc.strerror or exc})"
        if where.rel not in self._files:
            self._files.append(where.rel)
        return None

    def drop(self, path: str) -> str | None:
        """Remove ``path``; ``None`` when it was in, else a message saying it was not."""
        try:
            rel = confine(self.root, path).rel
        except FileRefused:
            rel = path
        if rel not in self._files:
            listed = ", ".join(self._files) or "nothing"
            return f"{path} is not in the context (it holds {listed})"
        self._files.remove(rel)
        return None

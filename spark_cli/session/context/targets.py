"""The files of a request: the repo's as the map sees them (what ``git`` would track, minus
vendored folders, binary extensions and files over ``MAX_FILE_BYTES``, at most ``MAX_FILES``),
the ones the user added (``/add``, ``/drop``), reading one (confined, decoded, checked, else a
`RequestError` naming it), the AGENTS.md."""

from __future__ import annotations

from pathlib import Path

from spark_cli.edits.disk.paths import confine
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.protocol.agents_file import AGENTS_FILE
from spark_cli.record import record
from spark_cli.session.events import FailureKind, TurnFailed
from spark_cli.text_digest import text_sha256
from spark_cli.tools.repo_files import (
    BINARY_EXTENSIONS,
    VENDORED,
    RepoFiles,
    WalkFilter,
    ignore_rules,
    walk,
)

MAX_FILES = 20_000
MAX_FILE_BYTES = 512 * 1024
_MAP_FILTER = WalkFilter(skip_dirs=VENDORED, skip_extensions=BINARY_EXTENSIONS,
                         max_bytes=MAX_FILE_BYTES)
_FILE_FAILURES: dict[str, FailureKind] = {"binary": "binary", "encoding": "encoding",
                                          "too_large": "too_large"}


class RequestError(Exception):
    """The request cannot be built; nothing was sent. ``kind`` is a ``TurnFailed`` kind."""

    def __init__(self, kind: FailureKind, message: str) -> None:
        super().__init__(message)
        self.kind: FailureKind = kind
        self.message = message

    def failure(self) -> TurnFailed:
        """The turn's failure event (nothing was sent)."""
        return TurnFailed(self.kind, self.message)


@record
class TargetFile:
    """A file sent to the model: its path, its text, the digest of that text."""

    path: str
    """Root-relative, POSIX-style."""
    text: str
    sha256: str


def read_target(root: Path, raw: str) -> TargetFile:
    """One file to edit, confined to ``root`` and decoded; ``RequestError`` otherwise."""
    try:
        where = confine(root, raw)
    except FileRefused as exc:
        raise RequestError("path", exc.message) from None
    if not where.path.exists():
        raise RequestError("not_found_file", f"{raw}: no such file")
    if where.path.is_dir():
        raise RequestError("path", f"{raw} is a directory; name the files to edit")
    try:
        text = read_text_file(where.path, name=where.rel).text
    except FileRefused as exc:
        kind = _FILE_FAILURES.get(exc.reason, "path")
        raise RequestError(kind, exc.message + "; nothing was sent") from None
    except OSError as exc:
        raise RequestError("path", f"{raw}: cannot read ({exc.strerror or exc})") from None
    return TargetFile(where.rel, text, text_sha256(text))


def read_agents_md(root: Path) -> str | None:
    """The repo root's AGENTS.md, if there is one and it is text."""
    path = Path(root) / AGENTS_FILE
    if not path.is_file():
        return None
    try:
        return read_text_file(path, name=AGENTS_FILE).text
    except (OSError, FileRefused):
        return None


def scan(root: Path, *, max_files: int = MAX_FILES) -> RepoFiles:
    """Every file of the repo at ``root`` worth showing a model."""
    return walk(root, only=_MAP_FILTER, limit=max_files)


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

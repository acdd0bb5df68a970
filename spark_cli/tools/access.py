"""Where a tool may look: a path a model wrote, confined like edits, then gated by the
tools' own checks (:meth:`Access.locate`); ``buffers``: an editor's open files, read first."""

from __future__ import annotations

import os
import posixpath
import stat
from collections.abc import Callable, Collection
from pathlib import Path
from typing import Literal

from spark_cli.edits.disk.paths import PROTECTED_DIRS, confine
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.record import record
from spark_cli.tools.model import ToolFailure
from spark_cli.tools.repo_files import VENDORED, RepoFiles, ignore_rules


@record
class Target:
    """A confined path: ``rel`` is repo-relative with "/" ("" is the root)."""

    rel: str
    path: Path
    is_dir: bool
    size: int

    @property
    def vendored(self) -> bool:
        """Inside a folder the walks skip unless asked (``node_modules``, ``build``, …)."""
        return any(part in VENDORED for part in self.rel.split("/"))


def _normal(rel: str) -> str:
    rel = posixpath.normpath(rel.strip().replace("\\", "/"))
    return "" if rel == "." else rel


OUTSIDE = "outside:"
"""A ``readable`` entry with this mark names a folder outside the repo (a skill's)."""


class Access:
    """The repo root, its ignore rules, and the paths the user made readable."""

    def __init__(self, root: Path, readable: Collection[str] = (),
                 buffers: Callable[[str], str | None] | None = None) -> None:
        self.buffers = buffers
        self.root = Path(os.path.realpath(root))
        self.readable = frozenset(
            r for r in (_normal(str(name)) for name in readable)
            if r and not r.startswith(("/", "../", OUTSIDE)) and r != "..")
        self.outside = tuple(os.path.realpath(r[len(OUTSIDE):]) for r in readable
                             if r.startswith(OUTSIDE) and os.path.isabs(r[len(OUTSIDE):]))
        """Folders outside the repo whose files may be read at their absolute paths (skills)."""
        self._rules: RepoFiles | None = None

    @property
    def rules(self) -> RepoFiles:
        if self._rules is None:
            self._rules = ignore_rules(self.root)
        return self._rules

    def user_named(self, rel: str) -> bool:
        """Whether the user named or added ``rel`` or a folder above it."""
        return rel in self.readable or any(rel.startswith(r + "/") for r in self.readable)

    def locate(self, raw: str | None, *, want: Literal["file", "any"]) -> Target:
        """The file (or folder, ``want="any"``) ``raw`` names; `ToolFailure` if not.

        Symlinks are followed (never into ``.git``/``.spark``); only regular files or folders;
        ``.gitignore`` hides it unless the user named or added it (``readable``)."""
        name = "" if raw is None else raw.strip()
        if not name.isascii():
            try:
                name.encode("utf-8")
            except UnicodeEncodeError:
                raise ToolFailure("path is not valid Unicode text (a lone surrogate)",
                                  "path refused") from None
        if want == "any" and self._is_root(name):
            return Target("", self.root, True, 0)
        outside = self._outside(name) if want == "file" and self.outside else None
        if outside is not None:
            return outside
        try:
            confined = confine(self.root, name)
        except FileRefused as refused:
            message = refused.message.replace("are never edited", "are never read by tools")
            raise ToolFailure(message, "path refused") from None
        rel = confined.rel
        real = os.path.realpath(confined.path)
        base = str(self.root)
        if real != base and not real.startswith(base.rstrip(os.sep) + os.sep):
            raise ToolFailure(f"{name}: leads outside the repo root", "path refused")
        real_rel = "" if real == base else Path(real).relative_to(base).as_posix()
        protected = PROTECTED_DIRS.intersection(real_rel.split("/"))
        if protected:
            raise ToolFailure(f"{name}: leads into {sorted(protected)[0]}/, which tools never "
                              "read", "path refused")
        st = self._stat(rel, real)
        is_dir = stat.S_ISDIR(st.st_mode)
        if not is_dir and not stat.S_ISREG(st.st_mode):
            raise ToolFailure(f"{rel} is not a regular file", "not a regular file")
        if want == "file" and is_dir:
            raise ToolFailure(f"{rel} is a folder, not a file; list_files with path {rel!r} "
                              "shows its files", "is a folder")
        if real_rel:
            self._gate(rel, real_rel, is_dir)
        return Target(rel, confined.path, is_dir, 0 if is_dir else st.st_size)

    def _outside(self, name: str) -> Target | None:
        """A regular file inside one of the ``outside`` folders (links resolved), else None."""
        real = os.path.realpath(name)
        if not os.path.isabs(name) or not any(real.startswith(f + os.sep) for f in self.outside):
            return None
        try:
            st = os.stat(real)
        except OSError:
            return None
        return Target(name, Path(real), False, st.st_size) if stat.S_ISREG(st.st_mode) else None

    def _is_root(self, name: str) -> bool:
        """The root: an empty path, ".", "src/..", or the root's own absolute path."""
        if posixpath.normpath(name.replace("\\", "/")) == "." or not name:
            return True
        return name.startswith("/") and "\x00" not in name and os.path.realpath(name) == str(
            self.root)

    def named_files(self, under: str) -> list[Target]:
        """The readable files the user named or added below ``under`` ("" = anywhere)."""
        found = []
        for rel in sorted(self.readable):
            if under and rel != under and not rel.startswith(under + "/"):
                continue
            try:
                found.append(self.locate(rel, want="file"))
            except ToolFailure:
                continue
        return found

    def _stat(self, rel: str, real: str) -> os.stat_result:
        try:
            return os.stat(real)
        except (FileNotFoundError, NotADirectoryError):
            raise ToolFailure(f"{rel}: no such file or folder; list_files shows the repo's files",
                              "no such file") from None
        except PermissionError:
            raise ToolFailure(f"{rel}: permission denied", "permission denied") from None
        except OSError as exc:
            raise ToolFailure(f"{rel}: cannot be read ({exc.strerror})", "unreadable") from None

    def _gate(self, rel: str, real_rel: str, is_dir: bool) -> None:
        if self.user_named(rel) or self.user_named(real_rel):
            return
        if self.rules.hidden(rel, is_dir=is_dir) or (
                real_rel != rel and self.rules.hidden(real_rel, is_dir=is_dir)):
            raise ToolFailure(f"{rel} is ignored by .gitignore; tools read ignored files only "
                              "when the user names or adds them", "ignored by .gitignore")

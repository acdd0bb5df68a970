"""The repo's files honouring ``.gitignore``: the one walk spark makes over a repo (the repo
map, ``list_files``, ``search``, and `stamp` / `changed` around a command)."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.record import record
from spark_cli.tools.ignores import IgnoreCache, IgnoreFile

if TYPE_CHECKING:
    import threading

VENDORED = frozenset({
    ".git", ".spark", "node_modules", "vendor", "third_party", "third-party", "bower_components",
    ".venv", "venv", ".tox", ".nox", "site-packages", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".cache", ".idea", ".vscode",
    "dist", "build", "target", ".next", ".nuxt", "coverage", ".gradle", "Pods",
})
NEVER = frozenset({".git", ".spark"})
BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd",
    ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".whl",
    ".jar", ".war", ".class", ".o", ".a", ".so", ".dylib", ".dll", ".exe", ".bin", ".obj",
    ".pyc", ".pyo", ".pyd", ".wasm", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3",
    ".mp4", ".mov", ".avi", ".wav", ".flac", ".ogg", ".webm", ".sqlite", ".db", ".pkl",
    ".npy", ".npz", ".parquet", ".onnx", ".pt", ".ckpt", ".safetensors", ".lock",
})


class Cancelled(Exception):
    """The caller's cancel event was set while walking or reading."""


@record
class RepoFile:
    """One file of the repo walk: its path, modification time and size."""

    rel: str
    mtime_ns: int
    size: int


@record
class WalkFilter:
    """What a walk leaves out besides ``.git/``, ``.spark/``, symlinks and ignored files."""

    skip_dirs: frozenset[str] = VENDORED  # folder names never entered
    skip_extensions: frozenset[str] = BINARY_EXTENSIONS  # lower case, with the dot
    max_bytes: int | None = None  # larger files are left out
    ignores: bool = True  # False: .gitignore files are not read (every file counts)


@record
class _Rules:
    """The ignore files in force, outermost first, each with its directory prefix."""

    specs: list[tuple[str, IgnoreFile]]
    cache: IgnoreCache

    def hides(self, rel: str, is_dir: bool) -> bool:
        """Whether ``rel`` is ignored (the walk's fast path: one regex per .gitignore)."""
        hidden = False
        for prefix, rules in self.specs:
            if prefix and not rel.startswith(prefix):
                continue
            name = rel[len(prefix):] + ("/" if is_dir else "")
            quick = rules.quick
            if quick is None:
                result = rules.spec.check_file(name)
                if result.include is not None:
                    hidden = bool(result.include)
            elif quick.match(name):
                hidden = True
        return hidden

    def verdict(self, rel: str, is_dir: bool) -> str | None:
        """The pattern that ignores ``rel`` (a deeper file wins, as in git), else None."""
        found: str | None = None
        for prefix, rules in self.specs:
            if prefix and not rel.startswith(prefix):
                continue
            spec = rules.spec
            name = rel[len(prefix):] + ("/" if is_dir else "")
            result = spec.check_file(name)
            if result.include is not None and result.index is not None:
                pattern = spec.patterns[result.index]
                found = str(getattr(pattern, "pattern", "")) if result.include else None
        return found

    def copy(self) -> _Rules:
        return _Rules(list(self.specs), self.cache)


@record
class RepoFiles:
    """The repo's files as the walk found them (``truncated``: the walk stopped at its limit)."""

    root: Path
    files: list[RepoFile]
    truncated: bool
    _rules: _Rules

    def paths(self) -> list[str]:
        return [f.rel for f in self.files]

    def ignored(self, rel: str) -> str | None:
        """Why ``rel`` (a root-relative POSIX path) is left out of the repo's files, or None."""
        parts = rel.split("/")
        for i, part in enumerate(parts[:-1]):
            if part in VENDORED:
                return f"it is inside {'/'.join(parts[:i + 1])}/, a vendored or generated folder"
        pattern = self._first(rel, lambda rules, sub, is_dir: rules.verdict(sub, is_dir))
        return f"it is ignored by .gitignore (pattern {pattern!r})" if pattern else None

    def hidden(self, rel: str, *, is_dir: bool = False) -> bool:
        """Whether ``.gitignore`` rules hide ``rel`` or one of its folders."""
        return bool(self._first(rel, lambda rules, sub, folder: rules.hides(sub, folder) or None,
                                is_dir=is_dir))

    def _first(self, rel: str, check: Callable[[_Rules, str, bool], str | bool | None], *,
               is_dir: bool = False) -> str | bool | None:
        """``check`` on ``rel``'s folders, outermost first, then on ``rel``: the first answer."""
        parts = rel.split("/")
        rules = self._rules.copy()  # the root's; nested ones are loaded on the way down
        for i in range(len(parts)):
            sub = "/".join(parts[:i + 1])
            found = check(rules, sub, is_dir or i < len(parts) - 1)
            if found:
                return found
            if i < len(parts) - 1:
                _load_rules(self.root, sub + "/", rules)
        return None


def _load_rules(root: Path, prefix: str, rules: _Rules) -> None:
    source = root / prefix / ".gitignore" if prefix else root / ".gitignore"
    try:
        text = source.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    rules.specs.append((prefix, rules.cache.rules(text)))


def _root_rules(root: Path) -> _Rules:
    rules = _Rules([], IgnoreCache(root))
    _load_rules(root, "", rules)
    exclude = root / ".git" / "info" / "exclude"
    if exclude.is_file():
        text = exclude.read_text(encoding="utf-8", errors="replace")
        rules.specs.insert(0, ("", rules.cache.rules(text)))
    return rules


def ignore_rules(root: Path) -> RepoFiles:
    """The repo's ignore rules without walking it (``files`` is empty): for ``ignored``."""
    root = Path(root).resolve()
    return RepoFiles(root, [], False, _root_rules(root))


def walk(root: Path, *, under: str = "", only: WalkFilter = WalkFilter(),
         limit: int | None = None, cancel: threading.Event | None = None) -> RepoFiles:
    """The repo's regular files below ``under`` as sorted ``(rel, mtime_ns, size)``.

    Left out: what ``.gitignore`` files ignore (git's rules), ``.git/`` and ``.spark/``,
    symlinks, ``*.spark-tmp`` and what ``only`` names. At most ``limit`` files; ``cancel``
    stops it between folders with `Cancelled`."""
    root = Path(root).resolve()
    rules = _root_rules(root) if only.ignores else _Rules([], IgnoreCache(root))
    prefix = under.strip("/") + "/" if under.strip("/") else ""
    parts = prefix.split("/")[:-1]
    for i in range(len(parts) - 1 if only.ignores else 0):  # _walk reads under's own
        _load_rules(root, "/".join(parts[:i + 1]) + "/", rules)
    found: list[RepoFile] = []
    walker = _Walker(root, rules, only, found, limit, cancel)
    truncated = walker.walk(prefix)
    rules.cache.save()
    found.sort(key=lambda f: f.rel)
    return RepoFiles(root, found, truncated, rules.copy())


STAMPED_MAX = 50_000
GENERATED = VENDORED - {"vendor", "third_party", "third-party", ".idea", ".vscode"}
_EVERY_FILE = WalkFilter(skip_dirs=GENERATED, skip_extensions=frozenset(), ignores=False)


def stamp(root: Path, *, limit: int = STAMPED_MAX) -> RepoFiles:
    """Every file now with its stamp, ignored ones too (not `GENERATED` folders), for `changed`."""
    return walk(root, only=_EVERY_FILE, limit=limit)


def changed(before: RepoFiles, after: RepoFiles) -> tuple[str, ...] | None:
    """The files added, removed or modified between two walks; None when either was cut."""
    if before.truncated or after.truncated:
        return None
    old = {f.rel: (f.mtime_ns, f.size) for f in before.files}
    new = {f.rel: (f.mtime_ns, f.size) for f in after.files}
    return tuple(sorted(k for k in old.keys() | new.keys() if old.get(k) != new.get(k)))


@record
class _Walker:
    """One walk of the repo: where it starts, what it skips, what it found."""

    root: Path
    rules: _Rules
    only: WalkFilter
    found: list[RepoFile]
    limit: int | None
    cancel: threading.Event | None

    def walk(self, prefix: str) -> bool:
        """Add the files under ``prefix`` to ``found``; True when ``limit`` was reached."""
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled
        rules, found, limit = self.rules, self.found, self.limit
        depth = len(rules.specs)
        try:
            entries = sorted(os.scandir(os.path.join(self.root, prefix)), key=lambda e: e.name)
        except OSError:
            entries = []
        if prefix and self.only.ignores and any(e.name == ".gitignore" for e in entries):
            _load_rules(self.root, prefix, rules)
        check = rules.hides if rules.specs else None
        try:
            for entry in entries:
                if entry.name in NEVER:
                    continue
                rel = prefix + entry.name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if self._enters(entry.name, rel, check) and self.walk(rel + "/"):
                            return True
                        continue
                    kept = self._file(entry, rel, check)
                except OSError:
                    continue
                if kept is not None:
                    found.append(kept)
                    if limit is not None and len(found) >= limit:
                        return True
            return False
        finally:
            del rules.specs[depth:]

    def _enters(self, name: str, rel: str, check: Callable[..., bool] | None) -> bool:
        """Whether the walk goes into the folder ``rel``."""
        return name not in self.only.skip_dirs and not (check and check(rel, is_dir=True))

    def _file(self, entry: os.DirEntry[str], rel: str,
              check: Callable[..., bool] | None) -> RepoFile | None:
        """The entry as a listed file, or None when the filter or the ignore rules drop it."""
        only = self.only
        if not entry.is_file(follow_symlinks=False) or _skipped_name(entry.name,
                                                                     only.skip_extensions):
            return None
        st = entry.stat(follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode):
            return None
        if only.max_bytes is not None and st.st_size > only.max_bytes:
            return None
        if check and check(rel, is_dir=False):
            return None
        return RepoFile(rel, st.st_mtime_ns, st.st_size)


def _skipped_name(name: str, extensions: frozenset[str]) -> bool:
    """A spark temp file a killed write left behind, or an extension in ``extensions``."""
    if name.endswith(".spark-tmp"):
        return True
    dot = name.rfind(".")
    return dot > 0 and name[dot:].lower() in extensions

"""The repo's files as spark sees them: what ``git`` would track, minus what is not code.

``scan(root)`` walks the tree once (``os.scandir``) and returns every regular
file as ``(rel, mtime_ns, size)``, POSIX-style and sorted, leaving out:

- whatever ``.gitignore`` files ignore (the root's, every nested one, and
  ``.git/info/exclude``; read with ``pathspec``'s git-exact rules, deeper files
  winning, as git does; :mod:`.ignores` caches what the walk needs of them);
- ``.git/``, ``.spark/`` and vendored or generated directories (``VENDORED``:
  ``node_modules``, ``vendor``, ``third_party``, virtualenvs, build output and
  tool caches);
- files with a binary extension (images, archives, compiled objects) and
  files over ``MAX_FILE_BYTES`` (generated data, lock files of megabytes);
- symlinks (they may lead outside the repo, or loop).

At most ``MAX_FILES`` files are listed (``truncated`` says when the walk
stopped early). ``ignored(rel)`` answers, for one path, which rule leaves it
out (the ``/add`` refusal message), or ``None``.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

from spark_cli.session.context.ignores import IgnoreCache, IgnoreFile

MAX_FILES = 20_000
MAX_FILE_BYTES = 512 * 1024
VENDORED = frozenset({
    ".git", ".spark", "node_modules", "vendor", "third_party", "third-party", "bower_components",
    ".venv", "venv", ".tox", ".nox", "site-packages", "__pycache__",
    ".mypy_cache", ".pytest_cache", ".ruff_cache", ".hypothesis", ".cache", ".idea", ".vscode",
    "dist", "build", "target", ".next", ".nuxt", "coverage", ".gradle", "Pods",
})
_NEVER = frozenset({".git", ".spark"})  # a worktree's .git is a file
BINARY_EXTENSIONS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".bmp", ".ico", ".webp", ".tif", ".tiff", ".psd",
    ".pdf", ".zip", ".gz", ".tgz", ".bz2", ".xz", ".zst", ".7z", ".rar", ".tar", ".whl",
    ".jar", ".war", ".class", ".o", ".a", ".so", ".dylib", ".dll", ".exe", ".bin", ".obj",
    ".pyc", ".pyo", ".pyd", ".wasm", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".mp3",
    ".mp4", ".mov", ".avi", ".wav", ".flac", ".ogg", ".webm", ".sqlite", ".db", ".pkl",
    ".npy", ".npz", ".parquet", ".onnx", ".pt", ".ckpt", ".safetensors", ".lock",
})


@dataclass(frozen=True, slots=True)
class ScannedFile:
    rel: str
    mtime_ns: int
    size: int


@dataclass(frozen=True, slots=True)
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


@dataclass(frozen=True, slots=True)
class RepoFiles:
    root: Path
    files: list[ScannedFile]
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
        rules = _Rules(list(self._rules.specs), self._rules.cache)  # the root's; nested below
        for i in range(len(parts)):
            sub = "/".join(parts[:i + 1])
            pattern = rules.verdict(sub, is_dir=i < len(parts) - 1)
            if pattern is not None:
                return f"it is ignored by .gitignore (pattern {pattern!r})"
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


def scan(root: Path, *, max_files: int = MAX_FILES) -> RepoFiles:
    """Every file of the repo at ``root`` worth showing a model (see the module docstring)."""
    root = Path(root).resolve()
    rules = _root_rules(root)
    found: list[ScannedFile] = []
    truncated = _walk(root, "", rules, found, max_files)
    rules.cache.save()
    found.sort(key=lambda f: f.rel)
    return RepoFiles(root, found, truncated, rules)


def _walk(root: Path, prefix: str, rules: _Rules, found: list[ScannedFile], limit: int) -> bool:
    """Add the files under ``prefix`` to ``found``; True when ``limit`` was reached."""
    depth = len(rules.specs)
    try:
        entries = sorted(os.scandir(os.path.join(root, prefix)), key=lambda e: e.name)
    except OSError:
        entries = []
    if prefix and any(e.name == ".gitignore" for e in entries):
        _load_rules(root, prefix, rules)
    check = rules.hides if rules.specs else None
    try:
        for entry in entries:
            if entry.name in _NEVER:
                continue
            rel = prefix + entry.name
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name in VENDORED or (check and check(rel, is_dir=True)):
                        continue
                    if _walk(root, rel + "/", rules, found, limit):
                        return True
                    continue
                if not entry.is_file(follow_symlinks=False) or _binary_name(entry.name):
                    continue
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                if st.st_size > MAX_FILE_BYTES:
                    continue
                if check and check(rel, is_dir=False):
                    continue
                found.append(ScannedFile(rel, st.st_mtime_ns, st.st_size))
                if len(found) >= limit:
                    return True
        return False
    finally:
        del rules.specs[depth:]


def _binary_name(name: str) -> bool:
    """Not source: a binary extension, or a spark temp file a killed write left behind."""
    dot = name.rfind(".")
    return dot > 0 and (name[dot:].lower() in BINARY_EXTENSIONS or name.endswith(".spark-tmp"))

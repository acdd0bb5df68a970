"""Every file's tags, kept up to date cheaply: cached per file by (mtime, size)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Collection, Sequence
from pathlib import Path

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.session.context.rank import Ranked, definers_of, rank_definitions
from spark_cli.session.context.tags import Definition, FileTags, extract
from spark_cli.session.context.targets import scan
from spark_cli.text_digest import text_key
from spark_cli.tools.repo_files import RepoFiles

CACHE_DIR = (".spark", "cache")
CACHE_FILE = "tags.json"
CACHE_VERSION = 5
_EMPTY = FileTags((), {}, " ")


class RepoIndex:
    """The tags of every file in the repo at ``root``, re-read only where (mtime, size) or the
    content changed, and kept between processes in ``.spark/cache/tags.json`` (plain JSON,
    written atomically when something changed; another shape is ignored). Not thread-safe."""

    def __init__(self, root: Path, *, disk_cache: bool = True) -> None:
        self.root = Path(root).resolve()
        self.disk_cache = disk_cache
        self._cache = self.root.joinpath(*CACHE_DIR, CACHE_FILE)
        self.tags: dict[str, FileTags] = {}
        self.version = 0
        """Bumped whenever ``tags`` changes (derived tables are rebuilt then)."""
        self._stamps: dict[str, tuple[int, int]] = {}
        self._digests: dict[str, str] = {}
        """rel -> the digest of the content its tags were read from (see ``_read``)."""
        self._disk_tried = False
        self._definers: dict[str, list[str]] | None = None
        self.pending: list[str] = []
        """Files the last refresh had no time to read (see ``refresh``)."""
        self._ranked: tuple[object, list[Ranked]] | None = None

    def refresh(self, files: RepoFiles | None = None, *, seconds: float | None = None,
                first: Sequence[str] = ()) -> int:
        """Re-read what changed (``first``'s folders first; past ``seconds``, the rest pending)."""
        started = time.perf_counter()
        if not self._disk_tried:
            self._disk_tried = True
            self._load_disk()
        tags: dict[str, FileTags] = {}
        stamps: dict[str, tuple[int, int]] = {}
        digests: dict[str, str] = {}
        stale = []
        for scanned in (files if files is not None else scan(self.root)).files:
            stamp = (scanned.mtime_ns, scanned.size)
            known = self.tags.get(scanned.rel)
            if known is None or self._stamps.get(scanned.rel) != stamp:
                stale.append((scanned.rel, stamp))
            else:
                tags[scanned.rel] = known
                stamps[scanned.rel] = stamp
                digests[scanned.rel] = self._digests.get(scanned.rel, "")
        homes = {rel.rpartition("/")[0] for rel in first}
        stale.sort(key=lambda item: item[0].rpartition("/")[0] not in homes)
        deadline = started + seconds if seconds is not None else None
        pending: list[str] = []
        parsed = 0
        for at, (rel, stamp) in enumerate(stale):
            tags[rel], digests[rel], fresh = self._read(rel)
            parsed += fresh
            stamps[rel] = stamp
            if deadline is not None and time.perf_counter() > deadline:
                pending = [r for r, _ in stale[at + 1:]]
                break
        changed = parsed > 0 or tags.keys() != self.tags.keys()
        restamped = len(stale) > len(pending) + parsed
        self.tags, self._stamps, self.pending = tags, stamps, sorted(pending)
        self._digests = digests
        if changed:
            self.version += 1
            self._definers = None
        if changed or restamped:
            self._save_disk()
        return parsed

    def definers(self) -> dict[str, list[str]]:
        """name -> the files that define it (sorted)."""
        if self._definers is None:
            self._definers = definers_of(self.tags)
        return self._definers

    def ranked(self, *, chat: Collection[str], named: Collection[str],
               mentioned: Collection[str], limit: int) -> list[Ranked]:
        """``rank_definitions`` over ``tags``, remembered for the last question asked."""
        definers = self.definers()
        key = (self.version, frozenset(chat), frozenset(named),
               frozenset(m for m in mentioned if m in definers), limit)
        if self._ranked is None or self._ranked[0] != key:
            self._ranked = (key, rank_definitions(self.tags, chat=chat, named=named,
                                                  mentioned=key[3], limit=limit))
        return self._ranked[1]

    def mentioning(self, name: str) -> list[str]:
        """The files that spell ``name`` anywhere, sorted (``pending`` ones as raw bytes)."""
        found = [rel for rel, t in self.tags.items() if t.mentions(name)]
        if self.pending:
            word = re.compile(rb"(?<![\w$])" + re.escape(name.encode()) + rb"(?![\w$])")
            for rel in self.pending:
                try:
                    if word.search((self.root / rel).read_bytes()):
                        found.append(rel)
                except OSError:
                    continue
            found.sort()
        return found

    def _read(self, rel: str) -> tuple[FileTags, str, bool]:
        """(the tags of ``rel``, its content's digest, whether it was parsed)."""
        try:
            text = read_text_file(self.root / rel, name=rel).text
        except (OSError, FileRefused):
            return _EMPTY, "", True
        digest = text_key(text)
        known = self.tags.get(rel)
        if known is not None and self._digests.get(rel) == digest:
            return known, digest, False
        if text.count("\n") * 400 < len(text):  # minified or generated: lines of 400+ chars
            return _EMPTY, digest, True
        try:
            return extract(text, language_for_path(rel)), digest, True
        except (ImportError, ValueError):  # a grammar that will not load: references only
            return extract(text, None), digest, True

    def _load_disk(self) -> None:
        if not self.disk_cache:
            return
        try:
            raw = json.loads(self._cache.read_text(encoding="utf-8"))
            if raw.get("version") != CACHE_VERSION:
                return
            tags: dict[str, FileTags] = {}
            stamps: dict[str, tuple[int, int]] = {}
            digests: dict[str, str] = {}
            for rel, (mtime_ns, size, defs, refs, words, digest) in raw["files"].items():
                tags[rel] = FileTags(tuple(Definition(str(n), str(k), int(li), str(s))
                                           for n, k, li, s in defs),
                                     _decode_refs(refs), str(words))
                stamps[rel] = (int(mtime_ns), int(size))
                digests[rel] = str(digest)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return
        self.tags, self._stamps, self._digests = tags, stamps, digests

    def _save_disk(self) -> None:
        if not self.disk_cache:
            return
        files = {rel: [*self._stamps[rel],
                       [[d.name, d.kind, d.line, d.signature] for d in t.definitions],
                       " ".join(f"{w} {c}" for w, c in t.references.items()), t.words,
                       self._digests.get(rel, "")]
                 for rel, t in self.tags.items()}
        try:
            spark = self._cache.parent.parent
            spark.mkdir(exist_ok=True)
            if not (spark / ".gitignore").exists():
                (spark / ".gitignore").write_text("*\n")
            write_atomic(self._cache, json.dumps({"version": CACHE_VERSION, "files": files},
                                                 separators=(",", ":")).encode(), durable=False)
        except OSError:
            pass  # a read-only checkout: the in-memory cache still serves this process


def _decode_refs(packed: str) -> dict[str, int]:
    """``"word count word count"``: one string per file loads quicker than a dict."""
    if not packed:
        return {}
    items = packed.split(" ")
    return dict(zip(items[::2], map(int, items[1::2]), strict=True))


_INDEXES: dict[Path, RepoIndex] = {}


def index_for(root: Path) -> RepoIndex:
    """This process's index of the repo at ``root`` (made on first use)."""
    key = Path(root).resolve()
    index = _INDEXES.get(key)
    if index is None:
        index = _INDEXES[key] = RepoIndex(key)
    return index

"""Whether the user trusts a repo's project files: until then spark reads none of them.

The record is ``trust.json`` in the user's state dir: per repo real path, a SHA-256 of the
covered files (`project_files`), so a changed, added or removed file asks again.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from spark_cli.record import record
from spark_cli.session.config.state_dir import state_base

TRUST_FILE = "trust.json"
PROJECT_CONFIG = ".spark/config.toml"
PROJECT_FOLDERS = (".spark/commands", ".spark/hooks", ".spark/skills", ".claude/commands",
                   ".claude/skills", ".agents/skills")
"""Folders whose files trust covers (read by later features; covered already)."""
MAX_FILES = 500
TRUST_HINT = "spark trust"
if TYPE_CHECKING:
    Status = Literal["none", "trusted", "untrusted", "changed"]


@record
class TrustState:
    """A repo's trust: ``none``, ``trusted``, ``untrusted`` (``problem``: why) or ``changed``."""

    root: str
    status: Status
    files: tuple[str, ...]
    digest: str
    problem: str = ""

    @property
    def trusted(self) -> bool:
        return self.status == "trusted"

    @property
    def asks(self) -> bool:
        """Project files that are not trusted: a front end asks, or ignores them."""
        return self.status in ("untrusted", "changed")

    def line(self) -> str:
        names = ", ".join(self.files[:3]) + (f" and {len(self.files) - 3} more"
                                            if len(self.files) > 3 else "")
        if self.status == "none":
            return "no project files"
        if self.status == "trusted":
            return f"trusted ({names})"
        why = "changed since you trusted it" if self.status == "changed" else "not trusted"
        extra = f"; {self.problem}" if self.problem else ""
        return (f"ignoring the project files of {self.root} ({names}): {why}{extra}; "
                f"to use them: {TRUST_HINT}")


def project_files(root: Path) -> list[str]:
    """The files trust covers, relative to ``root``, sorted (sub-folder links not followed)."""
    base = Path(root)
    found = [PROJECT_CONFIG] if (base / PROJECT_CONFIG).is_file() else []
    for folder in PROJECT_FOLDERS:
        if not (base / folder).is_dir():
            continue
        for dirpath, dirnames, filenames in os.walk(base / folder):
            dirnames.sort()
            found += [os.path.relpath(os.path.join(dirpath, f), base) for f in sorted(filenames)]
            if len(found) > MAX_FILES:
                break
    return sorted(found[:MAX_FILES])


def _digest(root: Path, files: list[str]) -> str:
    import hashlib  # deferred: only a repo with project files pays for it

    h = hashlib.sha256()
    for rel in files:
        try:
            data = read_once(Path(root) / rel)
        except OSError as exc:
            data = f"<unreadable: {exc.strerror}>".encode()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def store_path(env: Mapping[str, str] | None = None) -> Path:
    return state_base(env) / TRUST_FILE


def _read_store(path: Path) -> dict[str, dict[str, object]]:
    """The store's repos; ``ValueError`` (the message says what) when it is not readable."""
    import json  # deferred: only a repo with project files pays for it

    try:
        raw = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"the trust store {path} cannot be read ({exc})") from None
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise ValueError(f"the trust store {path} is not valid JSON ({exc})") from None
    repos = data.get("repos") if isinstance(data, dict) else None
    if not isinstance(repos, dict) or not all(isinstance(v, dict) for v in repos.values()):
        raise ValueError(f"the trust store {path} is not spark's (no table of repos)")
    return repos


_memo: dict[tuple[object, ...], TrustState] = {}


def trust_state(root: Path, env: Mapping[str, str] | None = None) -> TrustState:
    """The repo's trust now (a few stats; the files and the store read once per change)."""
    real = os.path.realpath(root)
    files = project_files(Path(real))
    if not files:
        return TrustState(real, "none", (), "")
    path = store_path(env)
    key = (real, str(path), *(_stamp(Path(real) / f) for f in files), _stamp(path))
    known = _memo.get(key)
    if known is not None:
        return known
    digest = _digest(Path(real), files)
    try:
        entry = _read_store(path).get(real)
    except ValueError as exc:
        state = TrustState(real, "untrusted", tuple(files), digest, str(exc))
    else:
        status: Status = "untrusted" if entry is None else (
            "trusted" if entry.get("digest") == digest else "changed")
        state = TrustState(real, status, tuple(files), digest)
    _memo.clear()
    _memo[key] = state
    return state


_read: dict[Path, tuple[tuple[int, int, int], bytes]] = {}


def read_once(path: Path) -> bytes:
    """``path``'s bytes, read again only when its size or time changed (each config file once)."""
    stamp, known = _stamp(path), _read.get(path)
    if known is not None and known[0] == stamp:
        return known[1]
    data = path.read_bytes()
    _read[path] = (stamp, data)
    return data


def _stamp(path: Path) -> tuple[int, int, int]:
    try:
        st = path.stat()
    except OSError:
        return (0, 0, 0)
    return (st.st_mtime_ns, st.st_size, st.st_ino)


def set_trust(state: TrustState, trusted: bool, env: Mapping[str, str] | None = None) -> Path:
    """Record (``trusted``) or forget the repo as ``state`` saw it; ``ValueError``: store failed."""
    import json  # deferred: spark trust and the TUI's question only
    import time  # deferred: as json

    from spark_cli.edits.disk.atomic import write_atomic  # deferred: as json

    path = store_path(env)
    repos = _read_store(path)
    if trusted:
        repos[state.root] = {"digest": state.digest, "files": list(state.files),
                             "at": time.time()}
    else:
        repos.pop(state.root, None)
    body = json.dumps({"version": 1, "kind": "trust", "repos": repos}, indent=1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, body.encode(), 0o600)
    except OSError as exc:
        raise ValueError(f"cannot write the trust store {path} ({exc.strerror or exc})") from None
    _memo.clear()
    return path

"""Each server's tool list of the last run, on disk: the first request declares them at once.

One JSON file per server under the user cache dir (``$SPARK_CACHE_DIR``, else
``$XDG_CACHE_HOME/spark`` or ``~/.cache/spark`` on Linux, else platformdirs'),
named by the server and a digest of its key: the command, the arguments and the
executable's resolved path and mtime (a reinstalled server is listed anew), or the
URL. A file that is missing, unreadable or for another key is no cache.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from spark_cli.mcp.config import McpServerConfig


def cache_dir(env: Mapping[str, str]) -> Path:
    """Where the tool lists live (``.../spark/mcp``)."""
    override = env.get("SPARK_CACHE_DIR")
    if override:
        return Path(override) / "mcp"
    if sys.platform.startswith("linux"):
        xdg = env.get("XDG_CACHE_HOME", "")
        return Path(xdg if xdg.startswith("/") else os.path.expanduser("~/.cache")) / "spark" \
            / "mcp"
    import platformdirs  # deferred: launch -> request

    return Path(platformdirs.user_cache_dir("spark", appauthor=False)) / "mcp"


def cache_key(server: McpServerConfig, root: Path) -> str:
    """What a cached list is valid for (see the module doc)."""
    if server.url:
        return server.url
    path = server.env.get("PATH") or os.environ.get("PATH")
    exe = shutil.which(server.command, path=path) or server.command
    try:
        mtime = os.stat(exe).st_mtime_ns
    except OSError:
        mtime = 0
    return json.dumps([server.command, list(server.args), os.path.realpath(exe), mtime,
                       str(root / server.cwd) if server.cwd else ""])


def _file(folder: Path, server: McpServerConfig, key: str) -> Path:
    return folder / f"{server.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def load_tools(folder: Path, server: McpServerConfig, key: str) -> list[dict[str, Any]] | None:
    """The cached tools (``name``, ``description``, ``schema``), or None."""
    try:
        data = json.loads(_file(folder, server, key).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("key") != key or not isinstance(
            data.get("tools"), list):
        return None
    return [t for t in data["tools"] if isinstance(t, dict) and isinstance(t.get("name"), str)]


def save_tools(folder: Path, server: McpServerConfig, key: str,
               tools: list[dict[str, Any]]) -> None:
    """Keep ``tools`` for the next run (written atomically; a failure only loses the cache)."""
    path = _file(folder, server, key)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(f".{os.getpid()}.tmp")
        temp.write_text(json.dumps({"key": key, "tools": tools}), encoding="utf-8")
        os.replace(temp, path)
    except OSError:
        pass

"""``[mcp_servers.NAME]`` tables from the user's and the project's config: stdio or streamable
HTTP servers, every value checked (:class:`McpConfigError` names the file and key); each
server's tool list of the last run cached by what it runs (`cache_key`)."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field
from pathlib import Path
from typing import Any

from spark_cli.protocol.secrets import Secrets
from spark_cli.record import record

_NAME = re.compile(r"[A-Za-z0-9_-]{1,32}")
_STDIO = ("command", "args", "env", "cwd")
_HTTP = ("url", "headers", "bearer_token_env_var")
_COMMON = ("enabled", "startup_timeout_s", "tool_timeout_s", "allowed_tools")
# key -> (check, words for the error)
_CHECKS: dict[str, tuple[Any, str]] = {
    "command": (lambda v: isinstance(v, str) and v.strip(), "a non-empty string"),
    "args": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
             "a list of strings"),
    "env": (lambda v: isinstance(v, dict) and all(isinstance(a, str) for a in v.values()),
            "a table of strings"),
    "cwd": (lambda v: isinstance(v, str), "a string (a directory)"),
    "url": (lambda v: isinstance(v, str) and v.startswith(("http://", "https://")),
            "an http(s) URL"),
    "bearer_token_env_var": (lambda v: isinstance(v, str) and v.strip(),
                             "a string (an environment variable name)"),
    "enabled": (lambda v: isinstance(v, bool), "a boolean (true/false)"),
    "startup_timeout_s": (lambda v: isinstance(v, int | float) and not isinstance(v, bool)
                          and v > 0, "a number of seconds greater than 0"),
    "allowed_tools": (lambda v: isinstance(v, list) and all(isinstance(a, str) for a in v),
                      "a list of tool names"),
}
USER_ONLY = frozenset({"bearer_token_env_var", "allowed_tools"})
"""A project server's keys only the user config may set (ignored there with a warning)."""
_VARIABLE = re.compile(r"\$\{?[A-Za-z_]")
_CHECKS["tool_timeout_s"] = _CHECKS["startup_timeout_s"]
_CHECKS["headers"] = _CHECKS["env"]


class McpConfigError(ValueError):
    """A bad ``[mcp_servers]`` table: names the file, the key and what was expected."""


@record
class McpServerConfig:
    """One configured server and where it was defined (``source``: ``project file PATH``)."""

    name: str
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    cwd: str = ""
    url: str = ""
    headers: dict[str, str] = field(default_factory=dict, repr=False, compare=False)
    bearer_token_env_var: str = ""
    enabled: bool = True
    startup_timeout_s: float = 10.0
    tool_timeout_s: float = 60.0
    allowed_tools: tuple[str, ...] = ()
    ignored: tuple[str, ...] = ()
    """A project file's user-only keys this server was read without, one warning each."""

    def secrets(self, environ: dict[str, str]) -> Secrets:
        """The values never to show: ``env`` and header values, and the bearer token."""
        token = environ.get(self.bearer_token_env_var) if self.bearer_token_env_var else None
        return Secrets([*self.env.values(), *self.headers.values(), token])

    def describe(self) -> str:
        """One line for ``spark config`` and ``/mcp`` (secret values left out)."""
        what = f"http {self.url}" if self.url else " ".join(["stdio", self.command, *self.args])
        extra = [f"env {', '.join(sorted(self.env))}" if self.env else "",
                 f"allowed {', '.join(self.allowed_tools)}" if self.allowed_tools else "",
                 "" if self.enabled else "disabled"]
        return f"{self.name}: {what}" + "".join(f"; {e}" for e in extra if e)


def _project_only(name: str, table: dict[str, Any], where: str) -> list[str]:
    """Drop a project server's user-only keys and variable-naming ``env`` values, warning each."""
    ignored = [f"'{key}'" for key in sorted(USER_ONLY & table.keys())]
    for key in USER_ONLY:
        table.pop(key, None)
    env = table.get("env")
    if isinstance(env, dict):
        named = sorted(k for k, v in env.items() if isinstance(v, str) and _VARIABLE.search(v))
        ignored += [f"'env.{k}' (it names a variable)" for k in named]
        table["env"] = {k: v for k, v in env.items() if k not in named}
    return [f"{where}: [mcp_servers.{name}] {key} ignored: a project file cannot set it; put "
            "it in your user config's [mcp_servers] table" for key in ignored]


def _server(name: str, table: object, where: str, source: str) -> McpServerConfig:
    if not _NAME.fullmatch(name):
        raise McpConfigError(f"{where}: [mcp_servers.{name}]: a server name is 1-32 letters, "
                             "digits, '_' or '-'")
    if not isinstance(table, dict):
        raise McpConfigError(f"{where}: 'mcp_servers.{name}' must be a table")
    known = (*_STDIO, *_HTTP, *_COMMON)
    for key, value in table.items():
        if key not in known:
            raise McpConfigError(f"{where}: [mcp_servers.{name}]: unknown key '{key}' "
                                 f"(known: {', '.join(known)})")
        check, words = _CHECKS[key]
        if not check(value):
            raise McpConfigError(f"{where}: [mcp_servers.{name}]: '{key}' must be {words}, "
                                 f"not {type(value).__name__}")
    if ("command" in table) == ("url" in table):
        raise McpConfigError(f"{where}: [mcp_servers.{name}]: give 'command' (stdio) or "
                             "'url' (streamable HTTP), not both or neither")
    wrong = [k for k in (_HTTP if "command" in table else _STDIO) if k in table]
    if wrong:
        raise McpConfigError(f"{where}: [mcp_servers.{name}]: '{wrong[0]}' does not go with "
                             f"'{'command' if 'command' in table else 'url'}'")
    table = dict(table)
    ignored = _project_only(name, table, where) if source.startswith("project") else []
    values: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v
                              for k, v in table.items()}
    return McpServerConfig(name, source, **values, ignored=tuple(ignored))


def read_servers(files: Sequence[tuple[str, Path]],
                 read: Callable[[Path], Mapping[str, object]] | None = None,
                 ) -> tuple[McpServerConfig, ...]:
    """The servers the files configure: ``(label, path)`` pairs, later files winning;
    ``read``: how a file's table is read (the session's: each file read once)."""
    found: dict[str, McpServerConfig] = {}
    for label, path in files:
        data = _read(path) if read is None else read(path)
        tables = data.get("mcp_servers", {})
        if not isinstance(tables, dict):
            raise McpConfigError(f"{path}: 'mcp_servers' must be a table of [mcp_servers.NAME]")
        for name, table in tables.items():
            found[name] = _server(name, table, str(path), f"{label} {path}")
    return tuple(found.values())


def _read(path: Path) -> Mapping[str, object]:
    try:
        raw = path.read_bytes()
    except OSError:
        return {}
    if b"mcp_servers" not in raw:
        return {}  # no table of ours: no parser needed
    import tomllib  # deferred: spark --help

    try:
        return tomllib.loads(raw.decode())
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise McpConfigError(f"{path}: not valid TOML ({exc})") from None


def config_lines(servers: Sequence[McpServerConfig]) -> list[str]:
    """``spark config``'s lines: each server, what it runs and where it was defined."""
    if not servers:
        return ["mcp servers          (none: add [mcp_servers.NAME] to a config file)"]
    return [f"mcp server           {s.describe()}  ({s.source})" for s in servers]


def cache_dir(env: Mapping[str, str]) -> Path:
    """The tool lists' folder: ``$SPARK_CACHE_DIR/mcp``, else the user cache's ``spark/mcp``."""
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
    """What a cached list is valid for: a reinstalled server is listed anew."""
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
    import hashlib  # deferred: spark --help

    return folder / f"{server.name}-{hashlib.sha256(key.encode()).hexdigest()[:16]}.json"


def load_tools(folder: Path, server: McpServerConfig, key: str) -> list[dict[str, Any]] | None:
    """The cached tools, or None (missing, unreadable or for another key)."""
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

"""What bubblewrap lays over the host for a command (docs/tools.md, Sandbox): host sockets,
credentials and spark's own folders hidden; the repo writable but its ``.git`` and
``.spark`` (followed through a ``.git`` file, submodules too) read-only, even when missing."""

from __future__ import annotations

import os
import pwd
import re
from collections.abc import Iterable, Mapping

CREDENTIALS = (".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".config/gh", ".docker",
               ".kube", ".npmrc", ".pypirc", ".config/gcloud", ".azure")
PROTECTED = (".git", ".spark")
_SUBMODULE_PATH = re.compile(r"^\s*path\s*=\s*(.+?)\s*$", re.MULTILINE)
_GITMODULES_MAX = 64 * 1024
_SPARK_DIRS = (("SPARK_CONFIG_DIR", "XDG_CONFIG_HOME", ".config"),
               ("SPARK_STATE_DIR", "XDG_STATE_HOME", ".local/state"),
               ("SPARK_CACHE_DIR", "XDG_CACHE_HOME", ".cache"))


def bwrap_mounts(root: str, env: Mapping[str, str], deny_read: Iterable[str] = ()) -> list[str]:
    """bubblewrap's mount arguments for the resolved repo ``root`` (``env``: the host's)."""
    emptied = _emptied(root, env)  # /tmp first: already in the argv
    args = [arg for folder in emptied[1:] for arg in ("--tmpfs", folder)]
    hidden = [p for p in _hidden(env, deny_read) if _under(p, root)
              or not _under_any(p, emptied)]
    around = [p for p in hidden if _under(root, p)]  # holds the repo: hidden, then the repo
    inside = [p for p in hidden if p not in around]
    args += [*_hide(around), "--bind", root, root, *_hide(inside)]
    for name in PROTECTED:
        path = os.path.join(root, name)
        args += (["--ro-bind", path, path] if os.path.lexists(path)
                 else ["--tmpfs", path, "--remount-ro", path])
    for kept in [*_gitdirs(os.path.join(root, ".git")), *_submodules(root)]:
        args += ["--ro-bind", kept, kept]
    return args


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _under_any(path: str, folders: Iterable[str]) -> bool:
    return any(_under(path, folder) for folder in folders)


def _emptied(root: str, env: Mapping[str, str]) -> list[str]:
    """``/tmp`` and the host's socket folders to empty (never one that holds the repo)."""
    found: list[str] = ["/tmp"]
    for folder in ("/run", "/var/run", env.get("XDG_RUNTIME_DIR", "")):
        real = os.path.realpath(folder) if folder.startswith("/") else ""
        if real and real != "/" and not _under_any(real, found) and not _under(root, real) \
                and os.path.isdir(real):
            found.append(real)
    return found


def _homes(env: Mapping[str, str]) -> list[str]:
    homes = [env.get("HOME", "")]
    try:
        homes.append(pwd.getpwuid(os.getuid()).pw_dir)
    except KeyError:
        pass
    return [home for home in dict.fromkeys(homes) if home.startswith("/") and home != "/"]


def _hidden(env: Mapping[str, str], deny_read: Iterable[str]) -> list[str]:
    """Every path to hide that exists, resolved (a link's target is hidden)."""
    homes = _homes(env)
    paths = [os.path.join(home, name) for home in homes for name in CREDENTIALS]
    for override, xdg, default in _SPARK_DIRS:
        if env.get(override):
            paths.append(env[override])
            continue
        base = env.get(xdg, "")
        paths += [os.path.join(base if base.startswith("/") else os.path.join(home, default),
                               "spark") for home in homes[:1]]
    for path in deny_read:
        expanded = path[1:].lstrip("/") if path.startswith("~") else path
        paths += ([os.path.join(home, expanded) for home in homes] if path.startswith("~")
                  else [path])
    found = (os.path.realpath(path) for path in paths if path.startswith("/"))
    return [path for path in dict.fromkeys(found) if os.path.lexists(path)]


def _hide(paths: Iterable[str]) -> list[str]:
    args: list[str] = []
    for path in paths:
        # a file reads as empty: /dev/null (bwrap's --ro-bind would add nodev: unreadable)
        args += ["--tmpfs", path] if os.path.isdir(path) else ["--dev-bind", "/dev/null", path]
    return args


def _gitdirs(dotgit: str) -> list[str]:
    """A ``.git`` file's gitdir and the common dir it shares (a worktree's main ``.git``)."""
    gitdir = _pointer(dotgit, "gitdir:")
    if gitdir is None:
        return []
    common = _pointer(os.path.join(gitdir, "commondir"), "")
    return [folder for folder in dict.fromkeys((gitdir, common or gitdir))
            if os.path.isdir(folder)]


def _submodules(root: str) -> list[str]:
    """The submodules' ``.git`` files (git runs in each: a rewritten one could plant a config)."""
    try:
        with open(os.path.join(root, ".gitmodules"), encoding="utf-8", errors="replace") as file:
            text = file.read(_GITMODULES_MAX)
    except OSError:
        return []
    found = (os.path.join(root, path, ".git") for path in _SUBMODULE_PATH.findall(text))
    return [path for path in dict.fromkeys(found) if os.path.isfile(path)]


def _pointer(path: str, prefix: str) -> str | None:
    """The folder a one-line pointer file names (relative to the file's folder), resolved."""
    try:
        if not os.path.isfile(path):
            return None
        with open(path, encoding="utf-8", errors="replace") as file:
            line = file.readline(4096).strip()
    except OSError:
        return None
    if not line.startswith(prefix) or not line[len(prefix):].strip():
        return None
    return os.path.realpath(os.path.join(os.path.dirname(path), line[len(prefix):].strip()))

"""The sandbox a command runs in: bubblewrap on Linux (tried once with the real flags, as
user namespaces may be off), sandbox-exec on macOS, or a `NoSandbox` with its fix."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from spark_cli.checks.confine import bwrap_mounts
from spark_cli.record import record

_PROBE_TIMEOUT = 10.0
_MACOS_PROFILE = """(version 1)
(allow default)
(deny network*)
(deny file-write*)
(allow file-write* (subpath (param "REPO")) (subpath (param "TMP")) (subpath "/private/tmp")
  (subpath "/private/var/folders") (literal "/dev/null") (literal "/dev/tty"))
"""


@record
class Sandbox:
    """A sandbox that works here: ``bubblewrap`` or ``sandbox-exec`` and its executable."""

    name: str
    path: str


@record
class NoSandbox:
    """No sandbox here: why (one line) and what fixes it."""

    reason: str
    fix: str

    def __str__(self) -> str:
        return f"{self.reason}; {self.fix}"


def sandboxed_argv(sandbox: Sandbox, root: Path, argv: list[str], *,
                   env: Mapping[str, str] | None = None,
                   deny_read: Iterable[str] = ()) -> list[str]:
    """``argv`` inside ``sandbox``: no network, no capabilities, mounts from `confine.bwrap_mounts`.

    ``--tmpfs /tmp`` precedes the repo's bind (a repo under /tmp would be hidden); no
    ``--new-session``, so the runner can signal the group. sandbox-exec keeps the write rules."""
    repo = str(Path(root).resolve())
    if sandbox.name == "sandbox-exec":
        tmp = str(Path(os.environ.get("TMPDIR", "/tmp")).resolve())
        return [sandbox.path, "-D", f"REPO={repo}", "-D", f"TMP={tmp}", "-p", _MACOS_PROFILE,
                *argv]
    mounts = bwrap_mounts(repo, os.environ if env is None else env, deny_read)
    return [sandbox.path, "--ro-bind", "/", "/", "--tmpfs", "/tmp", *mounts, "--dev", "/dev",
            "--proc", "/proc", "--unshare-net", "--unshare-pid", "--die-with-parent",
            "--cap-drop", "ALL", "--chdir", repo, *argv]


@cache
def find_sandbox() -> Sandbox | NoSandbox:
    """The sandbox commands can run in here (probed once per process)."""
    if sys.platform == "darwin":
        path = shutil.which("sandbox-exec")
        return Sandbox("sandbox-exec", path) if path else NoSandbox(
            "sandbox-exec is not on PATH", "it ships with macOS: check /usr/bin/sandbox-exec")
    if not sys.platform.startswith("linux"):
        return NoSandbox(f"no sandbox on {sys.platform}", "run spark on Linux or macOS")
    path = shutil.which("bwrap")
    if path is None:
        return NoSandbox("bubblewrap (bwrap) is not installed",
                         "install bubblewrap: apt-get install bubblewrap")
    found = Sandbox("bubblewrap", path)
    try:
        with tempfile.TemporaryDirectory(prefix="spark-probe-") as tmp:  # gets .git, .spark
            probe = subprocess.run(sandboxed_argv(found, Path(tmp), ["true"]),
                                   capture_output=True, stdin=subprocess.DEVNULL,
                                   timeout=_PROBE_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return NoSandbox(f"bubblewrap does not start ({exc})", "reinstall bubblewrap")
    if probe.returncode != 0:
        said = probe.stderr.decode("utf-8", "replace").strip().splitlines()[-1:] or ["no output"]
        return NoSandbox(f"bubblewrap cannot run here ({said[0]})",
                         "enable unprivileged user namespaces "
                         "(sysctl kernel.unprivileged_userns_clone=1) or make bwrap setuid")
    return found

"""Helpers for the command tests: the sandbox or a clear reason, and finding live processes
by a marker in their command line (their pids inside a sandbox are not ours)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from spark_cli.checks.sandbox import NoSandbox, Sandbox, find_sandbox


def bubblewrap() -> Sandbox:
    """The sandbox; skipped where there is none, but a failure under CI (never skipped)."""
    found = find_sandbox()
    if isinstance(found, NoSandbox) or not sys.platform.startswith("linux"):
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(f"the sandbox tests must run in CI: {found}")
        pytest.skip(str(found))
    return found


def alive_with(marker: str) -> list[int]:
    """Pids of running processes whose command line holds ``marker`` (zombies have none)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                cmdline = (entry / "cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry.name))
    return found

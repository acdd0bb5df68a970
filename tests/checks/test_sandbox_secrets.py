"""A hostile command in the sandbox, for real: it cannot read the credentials planted in a
home folder (nor spark's own folders, nor what ``sandbox_deny_read`` adds), while the rest of
the home stays readable; and it cannot connect() to a host Unix socket under
``$XDG_RUNTIME_DIR`` or ``/run``. The homes and runtime folders live under /var/tmp: the
sandbox's private /tmp would hide them whatever else it does."""

from __future__ import annotations

import asyncio
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from spark_cli.checks.runner import run_command
from tests.checks.processes import bubblewrap

PY = os.path.realpath(sys.executable)
SECRET = "planted-secret-0451"


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder outside /tmp (which the sandbox hides anyway)."""
    path = Path(tempfile.mkdtemp(prefix="spark-sandbox-", dir="/var/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


def plant(path: Path, text: str = SECRET) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text + "\n")
    return str(path)


async def test_credentials_and_denied_paths_are_unreadable(outside: Path,
                                                           tmp_path: Path) -> None:
    home = outside / "home"
    planted = [plant(home / ".ssh" / "id_rsa"), plant(home / ".aws" / "credentials"),
               plant(home / ".netrc"), plant(home / ".config" / "gh" / "hosts.yml"),
               plant(home / "vault" / "token"), plant(outside / "state" / "approved.json"),
               plant(home / ".config" / "spark" / "config.toml")]
    plant(home / "notes.txt", "readable")
    env = {"PATH": os.environ["PATH"], "HOME": str(home),
           "SPARK_STATE_DIR": str(outside / "state")}
    command = (f"cat {' '.join(planted)}; echo in-ssh=$(ls -A {home}/.ssh); cat ~/notes.txt; "
               f"echo x > {home}/.ssh/id_rsa; cat {home}/.ssh/id_rsa; "
               "cat ~/.netrc && echo netrc-reads-empty")
    run = await run_command(command, tmp_path, timeout=60, env=env, sandbox=bubblewrap(),
                            deny_read=["~/vault"])
    assert SECRET not in run.output and "in-ssh=\n" in run.output, run.output
    assert "readable\n" in run.output  # the rest of the home is there
    assert "netrc-reads-empty" in run.output  # a hidden file reads as empty, not an error
    assert (home / ".ssh" / "id_rsa").read_text() == SECRET + "\n"
    outside_run = await run_command(f"cat {planted[0]}", tmp_path, timeout=60, env=env)
    assert SECRET in outside_run.output  # the check can fail


async def _listening(path: Path | str, connected: asyncio.Event) -> asyncio.Server:
    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.set()
        writer.close()

    if isinstance(path, Path):
        path.parent.mkdir(parents=True, exist_ok=True)
    return await asyncio.start_unix_server(on_connect, str(path))


async def _cannot_connect(sock: Path | str, tmp_path: Path, env: dict[str, str],
                          error: str = "FileNotFoundError") -> None:
    connected = asyncio.Event()
    address = repr(str(sock)).replace("\\", "\\\\")
    command = (f"{PY} -c \"import socket; s = socket.socket(socket.AF_UNIX); "
               f"s.connect({address}); print('connected')\"")
    async with await _listening(sock, connected):
        host = await run_command(command, tmp_path, timeout=60, env=env)
        assert host.exit_code == 0 and connected.is_set(), host.output  # the check can fail
        connected.clear()
        run = await run_command(command, tmp_path, timeout=60, env=env, sandbox=bubblewrap())
    assert run.exit_code != 0 and "connected" not in run.output.splitlines(), run.output
    assert error in run.output and not connected.is_set()


async def test_no_socket_under_the_runtime_dir(outside: Path, tmp_path: Path) -> None:
    runtime = outside / "runtime"
    env = {"PATH": os.environ["PATH"], "XDG_RUNTIME_DIR": str(runtime)}
    await _cannot_connect(runtime / "agent.sock", tmp_path, env)


async def test_no_socket_under_run(tmp_path: Path) -> None:
    if not os.access("/run", os.W_OK):
        pytest.skip("needs a writable /run to listen there (CI runs as root)")
    folder = Path(tempfile.mkdtemp(prefix="spark-sandbox-", dir="/run"))
    try:
        await _cannot_connect(folder / "docker.sock", tmp_path, {"PATH": os.environ["PATH"]})
    finally:
        shutil.rmtree(folder, ignore_errors=True)


async def test_no_abstract_socket(tmp_path: Path) -> None:
    name = f"\0spark-sandbox-{os.getpid()}"  # the network namespace cuts these
    await _cannot_connect(name, tmp_path, {"PATH": os.environ["PATH"]}, "ConnectionRefused")

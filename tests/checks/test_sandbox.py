"""run_command under bubblewrap, for real: the repo is writable and nothing else is, no
network, no API keys, nothing left running; and finding the sandbox (or why not)."""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

import pytest

from spark_cli.checks import sandbox as sandbox_module
from spark_cli.checks.runner import run_command
from spark_cli.checks.sandbox import NoSandbox, Sandbox, find_sandbox, sandboxed_argv
from tests.checks import processes
from tests.checks.processes import alive_with, bubblewrap

PY = os.path.realpath(sys.executable)
"""The interpreter itself, not a venv's link to it: a checkout under /tmp has its venv hidden
by the sandbox's private /tmp (these commands need only the standard library)."""
ENV = {"PATH": os.environ["PATH"]}


async def test_the_repo_is_writable_and_the_rest_is_not() -> None:
    box = bubblewrap()
    with tempfile.TemporaryDirectory(dir="/tmp") as tmp:  # the private /tmp must not hide it
        await _writes(box, Path(tmp))


async def _writes(box: Sandbox, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "kept.txt").write_text("in the repo\n")
    outside = Path("/var/tmp") / f"spark-sandbox-{os.getpid()}"
    command = (f"cat kept.txt && echo made > made.txt && pwd; echo x > {outside}; "
               f"echo y > {tmp_path}/beside.txt; echo exit=$?")
    run = await run_command(command, repo, timeout=60, env=ENV, sandbox=box)
    assert run.exit_code == 0 and run.sandboxed, run.output
    assert run.output.startswith(f"in the repo\n{repo}\n")
    assert "Read-only file system" in run.output
    assert (repo / "made.txt").read_text() == "made\n"
    assert not outside.exists()
    assert not (tmp_path / "beside.txt").exists()  # written to the sandbox's own /tmp


async def test_no_network_even_to_the_host(tmp_path: Path) -> None:
    box = bubblewrap()
    connected = asyncio.Event()

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connected.set()
        writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    command = (f"{PY} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), "
               "timeout=5); print('connected')\"")
    async with server:
        outside = await run_command(command, tmp_path, timeout=60, env=ENV)
        assert outside.exit_code == 0 and connected.is_set()  # the check can fail
        connected.clear()
        run = await run_command(command, tmp_path, timeout=60, env=ENV, sandbox=box)
    assert run.exit_code != 0 and "connected" not in run.output.splitlines()
    assert "ConnectionRefusedError" in run.output or "unreachable" in run.output, run.output
    assert not connected.is_set()


async def test_api_keys_are_not_in_the_sandbox(tmp_path: Path) -> None:
    env = {**ENV, "OPENAI_API_KEY": "sk-abcdefgh", "CEREBRAS_API_KEY": "csk-abcdefgh"}
    run = await run_command("env", tmp_path, timeout=60, env=env, sandbox=bubblewrap())
    assert run.exit_code == 0 and "PATH=" in run.output and "TMPDIR=/tmp" in run.output
    assert "API_KEY" not in run.output and "abcdefgh" not in run.output


async def test_timeout_ends_everything_in_the_sandbox(tmp_path: Path) -> None:
    marker = f"{os.getpid()}5"
    command = f"trap '' TERM; sleep 30.{marker}1 & echo started; sleep 30.{marker}2"
    run = await run_command(command, tmp_path, timeout=0.5, env=ENV, sandbox=bubblewrap())
    assert run.ended == "timeout" and run.output == "started\n"
    assert alive_with(f"30.{marker}") == []
    assert run.duration_s < 10


async def test_stop_ends_everything_in_the_sandbox(tmp_path: Path) -> None:
    marker = f"{os.getpid()}6"
    stop = asyncio.Event()
    run = await run_command(f"sleep 30.{marker} & echo started; wait", tmp_path, timeout=60,
                            env=ENV, sandbox=bubblewrap(), stop=stop,
                            on_output=lambda chunk: stop.set())
    assert run.ended == "stopped" and alive_with(f"30.{marker}") == []


def test_bubblewrap_argv_binds_tmp_before_the_repo(tmp_path: Path) -> None:
    argv = sandboxed_argv(Sandbox("bubblewrap", "/usr/bin/bwrap"), tmp_path, ["/bin/sh", "-c",
                                                                              "true"], env={})
    repo = str(tmp_path.resolve())
    assert argv[:6] == ["/usr/bin/bwrap", "--ro-bind", "/", "/", "--tmpfs", "/tmp"]
    bind = argv.index(repo) - 1
    assert argv[bind:bind + 3] == ["--bind", repo, repo]
    assert argv.index(f"{repo}/.git") > bind and argv.index(f"{repo}/.spark") > bind
    assert argv[-14:] == ["--dev", "/dev", "--proc", "/proc", "--unshare-net", "--unshare-pid",
                          "--die-with-parent", "--cap-drop", "ALL", "--chdir", repo, "/bin/sh",
                          "-c", "true"]


def test_sandbox_exec_argv_passes_the_repo_as_a_parameter(tmp_path: Path) -> None:
    argv = sandboxed_argv(Sandbox("sandbox-exec", "/usr/bin/sandbox-exec"), tmp_path, ["true"])
    assert argv[:3] == ["/usr/bin/sandbox-exec", "-D", f"REPO={tmp_path.resolve()}"]
    profile = argv[argv.index("-p") + 1]
    assert "(deny network*)" in profile and '(subpath (param "REPO"))' in profile
    assert argv[-1] == "true"


@pytest.fixture
def fresh_probe() -> object:
    find_sandbox.cache_clear()
    yield
    find_sandbox.cache_clear()


@pytest.mark.usefixtures("fresh_probe")
def test_no_bwrap_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch,
                                         tmp_path: Path) -> None:
    monkeypatch.setattr(sandbox_module.sys, "platform", "linux")
    monkeypatch.setenv("PATH", str(tmp_path))
    found = find_sandbox()
    assert isinstance(found, NoSandbox) and "not installed" in found.reason
    assert found.fix == "install bubblewrap: apt-get install bubblewrap"


@pytest.mark.usefixtures("fresh_probe")
def test_a_bwrap_that_cannot_run_is_no_sandbox(monkeypatch: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\n"
                    "exit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox_module.sys, "platform", "linux")
    monkeypatch.setenv("PATH", str(tmp_path))
    found = find_sandbox()
    assert isinstance(found, NoSandbox) and "uid map: Permission denied" in found.reason
    assert "user namespaces" in found.fix


def test_under_ci_a_missing_sandbox_fails_the_test(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(processes, "find_sandbox", lambda: NoSandbox("gone", "install it"))
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="must run in CI: gone"):
        bubblewrap()
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception):
        bubblewrap()

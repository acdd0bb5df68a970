"""A command's environment is an allowlist, for real processes: the core variables and the
user's ``command_env`` reach it, in the sandbox, outside it and in a test run; a key, a token,
an agent socket or any other variable does not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_cli.checks.command_env import command_environ
from spark_cli.checks.detect import TestCommand
from spark_cli.checks.runner import run_command, run_tests
from tests.checks.processes import bubblewrap

PASSED = {"PATH": os.environ["PATH"], "HOME": "/nonexistent-home", "LANG": "C.UTF-8",
          "LC_ALL": "C.UTF-8", "PYENV_VERSION": "3.12.1", "VIRTUAL_ENV": "/opt/venv",
          "MY_TOOL_HOME": "/opt/tool"}
LEFT_OUT = {"AWS_SECRET_ACCESS_KEY": "aws-secret-value", "GITHUB_PAT": "ghp-pat-value",
            "OPENAI_KEY": "openai-key-value", "FOO": "foo-value",
            "SSH_AUTH_SOCK": "/tmp/ssh-agent.sock", "DOCKER_HOST": "unix:///run/docker.sock"}


def _only_the_list(output: str) -> None:
    lines = set(output.splitlines())
    for name, value in PASSED.items():
        assert f"{name}={value}" in lines, output
    for name, value in LEFT_OUT.items():
        assert name not in output and value not in output, output


async def test_only_listed_variables_reach_a_command(tmp_path: Path) -> None:
    env = {**PASSED, **LEFT_OUT}
    run = await run_command("env", tmp_path, timeout=60, env=env, keep_env=["MY_TOOL_HOME"])
    _only_the_list(run.output)
    boxed = await run_command("env", tmp_path, timeout=60, env=env, keep_env=["MY_TOOL_HOME"],
                              sandbox=bubblewrap())
    _only_the_list(boxed.output)
    unlisted = await run_command("env", tmp_path, timeout=60, env=env)
    assert "MY_TOOL_HOME" not in unlisted.output and "PATH=" in unlisted.output


async def test_a_test_run_gets_the_same_environment(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in {**PASSED, **LEFT_OUT}.items():
        monkeypatch.setenv(name, value)
    result = await run_tests(TestCommand(("env",), "test"), tmp_path, keep_env=["MY_TOOL_HOME"])
    assert result.passed
    _only_the_list(result.output)


def test_the_core_list() -> None:
    env = {"LC_CTYPE": "x", "PYENV_ROOT": "y", "CI": "true", "TMPDIR": "/t", "TZ": "UTC",
           "CONDA_PREFIX": "/c", "USER": "u", "LOGNAME": "u", "SHELL": "/bin/sh",
           "TERM": "xterm", "LC": "no", "PYENVX": "no", "XDG_RUNTIME_DIR": "/run/user/1"}
    assert command_environ(env) == {k: v for k, v in env.items() if v != "no"
                                    and k != "XDG_RUNTIME_DIR"}

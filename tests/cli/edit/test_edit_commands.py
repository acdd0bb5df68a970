"""`spark edit` with run_command, end to end: a scripted model in OpenAI's wire shapes (Chat
Completions SSE, and the Responses WebSocket) asks for commands; spark runs them in real
processes under the policy, in the real sandbox, and the model gets their output."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from spark_cli.checks.sandbox import Sandbox, find_sandbox
from tests.cli.edit.openai_script import Model, chat_model, responses_model

KEY = "sk-spark-test-0123456789abcdef"
TESTS = "def test_one():\n    assert 1 + 1 == 2\n"


def _needs_sandbox() -> None:
    if not isinstance(find_sandbox(), Sandbox):
        if os.environ.get("CI"):
            pytest.fail("no working bubblewrap in CI: .ci/run installs it")
        pytest.skip(f"no sandbox here: {find_sandbox()}")


def _needs_venv_inside() -> None:
    """The tests' own pytest runs in the sandbox, whose /tmp is private (docs/tools.md)."""
    if Path(sys.prefix).resolve().is_relative_to("/tmp"):
        pytest.skip(f"this checkout's venv ({sys.prefix}) lies under /tmp, which the sandbox "
                    "replaces with its own: run it from a clone outside /tmp")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "tests").mkdir(parents=True)
    (root / "app.py").write_text("def one():\n    return 1\n")
    (root / "tests" / "test_app.py").write_text(TESTS)
    (root / "pyproject.toml").write_text("[tool.pytest.ini_options]\n")
    return root


def _edit(repo: Path, base_url: str, *flags: str, provider: str = "openai-compatible",
          timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SPARK_") or k == "SPARK_STATE_DIR"}  # the trust store
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"), SPARK_API_KEY=KEY,
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run(
        [sys.executable, "-m", "spark_cli", "edit", "app.py", "-m", "run it", "--root",
         str(repo), "--provider", provider, "--base-url", base_url, "--model", "m", *flags],
        cwd=repo, env=env, capture_output=True, text=True, timeout=timeout,
        stdin=subprocess.DEVNULL)


def test_the_default_runs_nothing_and_tells_the_model_why(repo: Path) -> None:
    model = Model({"command": "touch made"})
    with chat_model(model) as url:
        done = _edit(repo, url)
    assert not (repo / "made").exists()
    assert "run_command" not in [t["function"]["name"] for t in model.requests[0]["tools"]]
    assert model.outputs == ["running commands is off (--commands)"]
    assert "touch made → running commands is off (--commands)" in done.stderr


def test_sandboxed_tests_run_for_real_over_chat_sse(repo: Path) -> None:
    _needs_sandbox()
    _needs_venv_inside()
    model = Model({"command": f"{sys.executable} -m pytest -q -p no:cacheprovider"})
    with chat_model(model) as url:
        done = _edit(repo, url, "--commands", "sandbox", "--json")
    [output] = model.outputs
    assert output.startswith("exit 0 · ") and "1 passed" in output, done.stderr
    kinds = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert kinds.count("command_started") == 1 and "command_output" in kinds
    finished = [json.loads(line) for line in done.stdout.splitlines()
                if json.loads(line)["type"] == "command_finished"]
    assert finished[0]["exit_code"] == 0 and finished[0]["ended"] == "exit"


def test_sandboxed_tests_run_for_real_over_the_responses_websocket(repo: Path) -> None:
    _needs_sandbox()
    _needs_venv_inside()
    model = Model({"command": f"{sys.executable} -m pytest -q -p no:cacheprovider"})
    with responses_model(model) as url:
        done = _edit(repo, url, "--commands", "sandbox", provider="openai")
    assert any(t["name"] == "run_command" for t in model.requests[0]["tools"])
    [output] = model.outputs
    assert output.startswith("exit 0 · ") and "1 passed" in output, done.stderr
    assert "1 passed" in done.stderr  # the output on stderr as it ran


def test_escapes_fail_in_the_sandbox_and_nothing_is_left_behind(repo: Path,
                                                                 tmp_path: Path) -> None:
    _needs_sandbox()
    outside = tmp_path / "outside.txt"
    listener = socket.create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    marker = f"31.{os.getpid()}"  # unique: pgrep below sees every process on the machine
    connect = (f"{sys.executable} -c \"import socket; socket.create_connection("
               f"('127.0.0.1', {port}), timeout=2); print('connected')\"")
    home = Path.home() / f"spark-escape-{os.getpid()}"
    model = Model({"command": f"echo escaped > {outside}"},
                  {"command": f"echo escaped > {home}"},
                  {"command": connect},
                  {"command": "echo key=$SPARK_API_KEY; env | grep -c API_KEY; echo " + KEY},
                  {"command": f"sleep {marker}", "timeout_s": 1})
    try:
        with chat_model(model) as url:
            done = _edit(repo, url, "--commands", "sandbox")
    finally:
        listener.close()
    to_tmp, to_home, reach, key, slow = model.outputs
    assert not outside.exists(), to_tmp  # /tmp in the sandbox is its own, private
    assert not home.exists() and "Read-only file system" in to_home, to_home
    assert "connected" not in reach and not reach.startswith("exit 0"), reach
    assert KEY not in key and "key=\n0\n" in key and "[secret]" in key
    assert KEY not in done.stderr and KEY not in done.stdout
    assert slow.startswith("killed: timeout after 1 s"), slow
    left = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, text=True)
    assert left.stdout == "", "a command outlived its turn"


def test_full_access_runs_without_asking_and_outside_any_sandbox(repo: Path) -> None:
    host = Path(tempfile.mkdtemp(dir="/tmp"))  # the sandbox replaces /tmp with its own
    (host / "marker").write_text("host tmp\n")
    model = Model({"command": f"cat {host / 'marker'}"})
    with chat_model(model) as url:  # stdin is /dev/null: a question could not be answered
        done = _edit(repo, url, "--commands", "full-access")
    shutil.rmtree(host)
    assert done.stderr.splitlines()[0] == (
        "spark: --commands full-access: commands run without asking and without a sandbox")
    [output] = model.outputs
    assert output.startswith("exit 0 · ") and "host tmp" in output, done.stderr


def test_a_project_file_never_sets_full_access(repo: Path) -> None:
    (repo / ".spark").mkdir()
    (repo / ".spark" / "config.toml").write_text('commands = "full-access"\n')
    (repo.parent / "user").mkdir()  # the user's config folder _edit names
    subprocess.run([sys.executable, "-m", "spark_cli", "trust", "--yes"], cwd=repo,
                   env={**os.environ, "SPARK_CONFIG_DIR": str(repo.parent / "user")},
                   check=True, capture_output=True, stdin=subprocess.DEVNULL)
    model = Model({"command": "touch made"})
    with chat_model(model) as url:
        done = _edit(repo, url)
    assert "'commands = 'full-access'' ignored: a project file cannot set it" in done.stderr
    assert "full-access:" not in done.stderr and not (repo / "made").exists()
    assert model.outputs == ["running commands is off (--commands)"]  # the default stays


def test_a_bad_policy_is_a_usage_error(repo: Path) -> None:
    done = _edit(repo, "http://127.0.0.1:9/v1", "--commands", "yolo")
    assert done.returncode == 2 and "one of ask, sandbox, off, full-access" in done.stderr

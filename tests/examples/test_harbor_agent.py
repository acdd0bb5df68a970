"""examples/harbor: the Harbor adapter, run without Docker. A Python >= 3.12 venv with the
real ``harbor`` package (built once, cached in ``~/.cache/spark-ci/harbor-VERSION``) imports
the adapter; its own ``run()`` drives a local stand-in for the task container (bash in a
scratch folder, spark from this venv, the bundled engine), then its context is read back."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HARBOR = "0.25.0"
ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "spark-ci"
PYTHONS = ("/root/.pyenv/versions/3.12.1/bin/python", "python3.13", "python3.12")
DRIVER = """
import asyncio, json, subprocess, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
from spark_agent import Spark
from harbor.models.agent.context import AgentContext

class Folder:  # the task container's exec, as a local folder
    default_user = None
    async def exec(self, command, user=None, env=None, cwd=None, timeout_sec=None):
        done = subprocess.run(["bash", "-c", command], cwd=sys.argv[2], capture_output=True,
                              text=True, env={**__import__("os").environ, **(env or {})})
        return type("Result", (), {"return_code": done.returncode, "stdout": done.stdout,
                                   "stderr": done.stderr})

logs = Path(sys.argv[2]).parent / "logs"
agent = Spark(logs_dir=logs, model_name="mock/gpt-5.3-codex-spark", environment_logs_dir=logs,
              timeout_s=sys.argv[3])
context = AgentContext()
try:
    asyncio.run(agent.run("rename greet to welcome", Folder(), context))
    failed = None
except Exception as exc:
    failed = type(exc).__name__
print(json.dumps({"line": agent.run_command("x")[0], "failed": failed,
                  "context": context.model_dump(exclude_none=True)}))
"""


def _python312() -> str:
    for name in PYTHONS:
        found = shutil.which(name)
        if found and subprocess.run([found, "-c", "import sys; assert sys.version_info >= "
                                     "(3, 12)"], capture_output=True).returncode == 0:
            return found
    pytest.skip("no Python >= 3.12 here (harbor needs it): looked for " + ", ".join(PYTHONS))


@pytest.fixture(scope="module")
def harbor_python() -> str:
    venv = CACHE / f"harbor-{HARBOR}"
    python = venv / "bin" / "python"
    CACHE.mkdir(parents=True, exist_ok=True)
    with (CACHE / f"harbor-{HARBOR}.lock").open("w") as lock:  # xdist workers: one builds
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (venv / ".installed").exists():
            _build(venv, python)
    return str(python)


def _build(venv: Path, python: Path) -> None:
    """Once per machine, bounded (about a minute cold)."""
    shutil.rmtree(venv, ignore_errors=True)
    subprocess.run([_python312(), "-m", "venv", str(venv)], check=True)
    done = subprocess.run([str(python), "-m", "pip", "install", "-q", f"harbor=={HARBOR}"],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        why = f"pip install harbor=={HARBOR} failed: {done.stderr[-400:]}"
        pytest.fail(why) if os.environ.get("CI") else pytest.skip(why)
    (venv / ".installed").touch()


def _task(tmp_path: Path) -> Path:
    task = tmp_path / "app"
    task.mkdir()
    (task / "hello.py").write_text('def greet(name):\n    return f"hello {name}"\n')
    (task / "test_hello.py").write_text(
        "from hello import welcome\n\n\ndef test_welcome():\n"
        '    assert welcome("x") == "hello x"\n')
    return task


def _drive(python: str, task: Path, timeout: str) -> dict[str, object]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # harbor's import: offline
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run([python, "-c", DRIVER, str(ROOT / "examples" / "harbor"), str(task),
                           timeout], env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return dict(json.loads(done.stdout.splitlines()[-1]))


def test_the_adapter_solves_a_tiny_task_and_fills_the_context(harbor_python: str,
                                                              tmp_path: Path) -> None:
    task = _task(tmp_path)
    out = _drive(harbor_python, task, "120")
    assert out["failed"] is None
    assert out["line"].startswith(
        f"mkdir -p {tmp_path / 'logs'} || exit; spark edit -m x --commands full-access "
        "--output-format stream-json --timeout 120 --provider mock --model "
        "gpt-5.3-codex-spark < /dev/null")
    check = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
                           cwd=task, capture_output=True, text=True)
    assert check.returncode == 0, check.stdout
    [result] = [r for line in (tmp_path / "logs" / "spark.jsonl").read_text().splitlines()
                if (r := json.loads(line))["type"] == "result"]
    usage = result["usage"]
    assert usage["input_tokens"] > 0 and usage["output_tokens"] > 0
    assert out["context"] == {"n_input_tokens": usage["input_tokens"]
                              + usage["cache_read_input_tokens"],
                              "n_cache_tokens": usage["cache_read_input_tokens"],
                              "n_output_tokens": usage["output_tokens"],
                              "cost_usd": result["total_cost_usd"]}


def test_a_usage_error_fails_the_run_and_leaves_the_context_empty(harbor_python: str,
                                                                  tmp_path: Path) -> None:
    task = _task(tmp_path)
    out = _drive(harbor_python, task, "-1")  # spark edit: exit 2, `--timeout` not above 0
    assert out["failed"] == "NonZeroAgentExitCodeError" and out["context"] == {}
    assert "def greet" in (task / "hello.py").read_text()

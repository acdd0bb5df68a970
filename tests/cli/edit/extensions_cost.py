"""What a library of prompt files, skills and hooks costs (not a test module): launch →
request of `spark edit` (paired, alternating with and without 50 commands, 20 skills and 5
hooks), and a no-op PreToolUse hook's cost per tool call against its bare process, paired.

    .venv/bin/python -m tests.cli.edit.extensions_cost [REPS]
"""

from __future__ import annotations

import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from asyncio.subprocess import PIPE
from pathlib import Path
from typing import Any

from spark_cli.session.config.trust import set_trust, trust_state
from spark_cli.session.extensions.hooks import Hooks
from tests.cli.edit.openai_script import Model, chat_model


class _Arrivals(list[dict[str, Any]]):
    def __init__(self) -> None:
        super().__init__()
        self.at = 0.0
        self.came = threading.Event()

    def append(self, body: dict[str, Any]) -> None:
        self.at = time.perf_counter()
        super().append(body)
        self.came.set()


def library(base: Path) -> dict[str, str]:
    """A user folder with 50 commands, 20 skills and 5 hooks, and a repo that trusts them."""
    user, home, repo = base / "user", base / "home", base / "repo"
    for i in range(50):
        folder = user / "commands" if i % 2 else repo / ".claude" / "commands"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"cmd{i}.md").write_text(f"---\ndescription: command {i}\n---\nDo {i}: $1\n")
    for i in range(20):
        skill = home / ".agents" / "skills" / f"skill{i}"
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(f"---\nname: skill{i}\ndescription: skill number {i}, "
                                        "for a kind of task\n---\nSteps.\n")
    hooks = "".join(f'[[hooks.{e}]]\ncommand = "true"\n' for e in (
        "PreToolUse", "PostToolUse", "Stop", "PreToolUse", "PostToolUse"))
    (user / "config.toml").write_text("tools = true\n" + hooks)
    env = {"SPARK_CONFIG_DIR": str(user), "HOME": str(home), "SPARK_STATE_DIR": str(base / "st")}
    set_trust(trust_state(repo, env), True, env)
    return env


def launch_to_request(repo: Path, env: dict[str, str]) -> float:
    model = Model()
    model.requests = arrivals = _Arrivals()
    with chat_model(model) as url:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "spark_cli", "edit", "src/shop/cart.py", "-m",
                        "rename Cart to Basket",
                        "--provider", "openai-compatible", "--base-url", url, "--model", "m"],
                       cwd=repo, env=env, capture_output=True, timeout=60,
                       stdin=subprocess.DEVNULL)
        assert arrivals.came.is_set()
        return arrivals.at - began


def main(reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        plain, full = base / "plain", base / "full"
        for b in (plain, full):  # each a copy of examples/repo
            shutil.copytree(Path(__file__).parents[3] / "examples" / "repo", b / "repo")
        (plain / "user").mkdir()  # a config file on both sides: reading one is not the library's
        (plain / "user" / "config.toml").write_text("tools = true\n")
        common = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
        common.update(SPARK_API_KEY="sk-bench", PYTHONPATH=str(Path(__file__).parents[3]))
        envs = {"plain": {**common, "SPARK_CONFIG_DIR": str(plain / "user"),
                          "HOME": str(plain / "home"), "SPARK_STATE_DIR": str(plain / "st")},
                "full": {**common, **library(full)}}
        times: dict[str, list[float]] = {"plain": [], "full": []}
        for _ in range(reps):  # alternating: the machine's load falls on both alike
            for name in ("plain", "full"):
                times[name].append(launch_to_request(base / name / "repo", envs[name]))
        med = {k: statistics.median(v) for k, v in times.items()}
        print(f"launch → request, median of {reps}: without {med['plain'] * 1000:.0f} ms, "
              f"with the library {med['full'] * 1000:.0f} ms "
              f"({(med['full'] / med['plain'] - 1) * 100:+.1f} %)")
        hooks = Hooks(full / "repo", {**envs["full"]})
        hooks.hooks.clear()
        hooks.hooks.append(library_hook())
        hook, bare = asyncio.run(_per_call(hooks, reps * 5))
        print(f"a no-op PreToolUse hook (`true`), per tool call: median {hook * 1000:.2f} ms; "
              f"its own process (`/bin/sh -c true` fed stdin, read to its end; paired): median "
              f"{bare * 1000:.2f} ms; ×{hook / bare:.2f}")


def library_hook() -> Any:
    from spark_cli.session.extensions.hooks import Hook

    return Hook("PreToolUse", "true")


async def _per_call(hooks: Hooks, n: int) -> tuple[float, float]:
    """The medians of ``Hooks.pre`` with one no-op hook (what it adds to a tool call: none
    configured costs nothing) and of the hook's bare process, alternating."""
    spent: list[float] = []
    bare: list[float] = []
    for _ in range(n):
        began = time.perf_counter()
        await hooks.pre("read_file", '{"path": "app.py"}')
        spent.append(time.perf_counter() - began)
        began = time.perf_counter()
        process = await asyncio.create_subprocess_exec(
            "/bin/sh", "-c", "true", stdin=PIPE, stdout=PIPE, stderr=PIPE, start_new_session=True)
        await process.communicate(b"{}")
        bare.append(time.perf_counter() - began)
    return statistics.median(spent), statistics.median(bare)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 10)

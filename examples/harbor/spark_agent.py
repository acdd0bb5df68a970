"""spark as a Harbor installed agent, for Terminal-Bench 2.0 (docs/harbor.md).

Needs the ``harbor`` package (Python >= 3.12); spark itself is installed into the task
container from a wheel of this checkout (built on the host, uploaded: no release needed).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from harbor.agents.installed.base import BaseInstalledAgent, with_prompt_template
from harbor.environments.base import BaseEnvironment
from harbor.models.agent.context import AgentContext

REPO = Path(__file__).resolve().parents[2]
VENV = "/installed-agent/spark"
LOG = "spark.jsonl"


class Spark(BaseInstalledAgent):
    """`spark edit` on the task's instruction: commands unasked and unsandboxed (the
    container is disposable), stream-json to ``/logs/agent/spark.jsonl``."""

    def __init__(self, *args: Any, timeout_s: int | str = 900, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.timeout_s = int(timeout_s)
        """spark's own wall budget (``--timeout``): keep it under the task's agent timeout."""

    @staticmethod
    def name() -> str:
        return "spark"

    def get_version_command(self) -> str | None:
        return f"{VENV}/bin/spark --version"

    def install_command(self, wheel: str) -> str:
        """A venv with spark from the uploaded ``wheel`` (its dependencies from PyPI)."""
        return (f"python3 -m venv {VENV} && {VENV}/bin/pip install -q {shlex.quote(wheel)}"
                f" && ln -sf {VENV}/bin/spark /usr/local/bin/spark")

    async def install(self, environment: BaseEnvironment) -> None:
        await self.ensure_system_dependencies(environment, ("python3", "python_venv", "git"))
        wheel = os.environ.get("SPARK_HARBOR_WHEEL") or build_wheel()
        target = f"/installed-agent/{Path(wheel).name}"
        await environment.upload_file(wheel, target)
        await self.exec_as_root(environment, self.install_command(target))

    def run_command(self, instruction: str) -> tuple[str, dict[str, str]]:
        """The shell line and its environment: Harbor's ``--model provider/model`` becomes
        ``--provider``/``--model`` (spark's provider names, not LiteLLM's); the provider's
        key (``OPENAI_API_KEY``, or ``SPARK_API_KEY``) comes from the host environment."""
        line = ["spark", "edit", "-m", instruction, "--commands", "full-access",
                "--output-format", "stream-json", "--timeout", str(self.timeout_s)]
        provider, _, model = (self.model_name or "").rpartition("/")  # spark's own names
        line += ["--provider", provider] if provider else []
        line += ["--model", model] if model else []
        keys = ("SPARK_API_KEY", f"{(provider or 'openai').upper().replace('-', '_')}_API_KEY")
        env = {k: v for k in keys if (v := self._get_env(k))}
        logs = shlex.quote(str(self.environment_logs_dir))
        # a turn that ended (refused blocks, no edit, --timeout: exits 1, 4, 5, 124) is the
        # verifier's to judge; a usage or provider failure (2, 3) fails the run
        return (f"mkdir -p {logs} || exit; {shlex.join(line)} < /dev/null > {logs}/{LOG}; "
                "code=$?; "
                "case $code in 0|1|4|5|124) exit 0;; esac; exit $code"), env

    @with_prompt_template
    async def run(self, instruction: str, environment: BaseEnvironment,
                  context: AgentContext) -> None:
        line, env = self.run_command(instruction)
        try:
            await self.exec_as_agent(environment, line, env=env)
        finally:  # a timeout (exit 124) or a failed turn still spent tokens
            self.populate_context_post_run(context)

    def populate_context_post_run(self, context: AgentContext) -> None:
        """Tokens and cost from the stream-json ``result`` line (Claude's usage: input
        excludes cached input; Harbor's ``n_input_tokens`` includes it)."""
        path = self.logs_dir / LOG
        lines = path.read_text().splitlines() if path.is_file() else []
        results = [r for r in map(_json, lines) if r.get("type") == "result"]
        if not results:
            return
        usage = results[-1].get("usage") or {}
        cached = usage.get("cache_read_input_tokens", 0)
        context.n_input_tokens = usage.get("input_tokens", 0) + cached
        context.n_cache_tokens = cached
        context.n_output_tokens = usage.get("output_tokens", 0)
        context.cost_usd = results[-1].get("total_cost_usd")  # None: no known price


def _json(line: str) -> dict[str, Any]:
    try:
        value = json.loads(line)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def build_wheel() -> str:
    """A wheel of this checkout, built once per run (pip's own build backend)."""
    out = tempfile.mkdtemp(prefix="spark-wheel-")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out,
                    str(REPO)], check=True)
    return str(next(Path(out).glob("*.whl")))

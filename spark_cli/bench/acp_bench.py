"""`spark bench acp`: what `spark acp` adds over `spark edit --json` on one engine's stream.
Per run: the session's first-delta mark to the reader holding the text, first text, CPU from
it to the turn's end (``schedstat``), and `spark acp`'s ``session/cancel`` to ``cancelled``."""

from __future__ import annotations

import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, cast

import typer
from acp import PROTOCOL_VERSION, Client, spawn_agent_process, text_block

from spark_cli.bench.figures import bench_command
from spark_cli.bench.processes import child_env, start_engine

SECTION = "## ACP"
TOKENS = 5000
PROMPT = "write code"


def _cpu(pid: int) -> float:
    """CPU seconds of ``pid``'s live threads so far (``schedstat``: nanoseconds, not ticks)."""
    return sum(int((task / "schedstat").read_text().split()[0])
               for task in Path(f"/proc/{pid}/task").iterdir()) / 1e9


def _env(work: Path, base_url: str, token: str) -> dict[str, str]:
    config = work / "config"
    config.mkdir(exist_ok=True)
    (config / "config.toml").write_text(
        f'provider = "mock"\nbase_url = "{base_url}"\nmodel = "spark-lorem"\n'
        f"max_output_tokens = {TOKENS}\ntools = false\n")
    return child_env(SPARK_CONFIG_DIR=str(config), SPARK_STATE_DIR=str(work / "s"),
                     SPARK_API_KEY=token)


def _edit_run(repo: Path, env: dict[str, str]) -> tuple[float, ...]:
    """(relay, launch -> first text, CPU from it to the summary) of one `spark edit --json`."""
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "spark_cli", "edit", "-m", PROMPT, "--json",
                             "a.py"], cwd=repo, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    first = cpu = None
    marks: dict[str, Any] = {}
    for line in proc.stdout:
        if first is None and line.startswith('{"type": "prose_delta"'):
            first, cpu = time.monotonic(), _cpu(proc.pid)
        elif line.startswith('{"type": "summary"') and cpu is not None:
            cpu = _cpu(proc.pid) - cpu
            marks = json.loads(line)["marks"]
    proc.stdout.close()
    proc.wait(30)
    assert first is not None and cpu and marks.get("first_delta_at"), "spark edit streamed no text"
    return first - marks["first_delta_at"], first - start, cpu


async def _acp_runs(repo: Path, env: dict[str, str], runs: int) -> list[tuple[float, ...]]:
    """Per prompt of one `spark acp`: the figures of ``_edit_run``, and cancel -> cancelled."""
    class Reader:
        first: float | None = None
        cpu = 0.0
        pid = 0

        chunk = asyncio.Event()

        async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
            if self.first is None and update.session_update == "agent_message_chunk":
                self.first, self.cpu = time.monotonic(), _cpu(self.pid)
                self.chunk.set()

    reader = Reader()
    found: list[tuple[float, ...]] = []
    async with spawn_agent_process(cast(Client, reader), sys.executable, "-m", "spark_cli",
                                   "acp", cwd=repo, env=env) as (conn, process):
        reader.pid = process.pid
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        for _ in range(runs):
            reader.first, start = None, time.monotonic()
            done = await conn.prompt(session_id=session.session_id, prompt=[text_block(PROMPT)])
            spent = _cpu(process.pid) - reader.cpu
            assert reader.first is not None and done.field_meta, "spark acp streamed no text"
            marks = done.field_meta["spark_marks"]
            row = (reader.first - marks["first_delta_at"], reader.first - start, spent)
            reader.first = None
            reader.chunk.clear()
            asked = asyncio.ensure_future(conn.prompt(session_id=session.session_id,
                                                      prompt=[text_block(PROMPT)]))
            await reader.chunk.wait()
            cancel = time.monotonic()
            await conn.cancel(session_id=session.session_id)
            assert (await asked).stop_reason == "cancelled", "the cancel did not end the turn"
            found.append((*row, time.monotonic() - cancel))
    return found


def measure(runs: int, tps: int) -> dict[str, dict[str, float]]:
    """Medians (ms) per front end of each figure of a run."""
    with tempfile.TemporaryDirectory(prefix="spark-bench-acp-") as tmp:
        work = Path(tmp)
        repo = work / "repo"
        repo.mkdir()
        (repo / ".git").mkdir()
        (repo / "a.py").write_text("x = 1\n")
        with start_engine("bench-acp", "--tps", str(tps)) as engine:
            env = _env(work, engine.url + "/v1", engine.token)
            edit = [_edit_run(repo, env) for _ in range(runs)]
            acp = asyncio.run(_acp_runs(repo, env, runs))

    def medians(rows: list[tuple[float, ...]]) -> dict[str, float]:
        return {key: 1000 * statistics.median(r[i] for r in rows)
                for i, key in enumerate(("relay_ms", "first_text_ms", "cpu_ms", "cancel_ms"))
                if i < len(rows[0])}

    return {"spark edit --json": medians(edit), "spark acp": medians(acp)}


def table(figures: dict[str, dict[str, float]]) -> str:
    rows = ["| front end | first delta -> reader (ms) | first text (ms) | CPU per 5,000 tokens "
            "(ms) | cancel -> cancelled (ms) |", "|---|---|---|---|---|"]
    rows += [f"| {name} | {f['relay_ms']:.2f} | {f['first_text_ms']:.0f} | {f['cpu_ms']:.1f} | "
             + (f"{f['cancel_ms']:.1f} |" if "cancel_ms" in f else "– |")
             for name, f in figures.items()]
    return "\n".join(rows)


def bench_acp(
    runs: int = typer.Option(5, "--runs", min=1, help="Turns per front end."),
    tps: int = typer.Option(5000, "--tps", min=1, help="The engine's pace (tokens/s)."),
) -> tuple[str, str]:
    """`spark acp` against `spark edit --json` on the same stream: relay, CPU per 5k tokens."""
    return table(measure(runs, tps)), f" --runs {runs} --tps {tps}"


register = bench_command("acp", SECTION, bench_acp)

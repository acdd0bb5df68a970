"""`spark bench deep`: the deep model's pace against a fast model's, in one run: ``spark-deep``
and ``spark-rules`` get the same multi-file task at once on one connection; per model TTFT,
rate, answer time and the files its edits change."""

from __future__ import annotations

import asyncio
import json
import secrets
import statistics
import time
from typing import Any

import typer
from websockets.asyncio.client import connect

from spark_cli.bench.figures import bench_command
from spark_cli.bench.processes import start_engine
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import FileEdit
from spark_cli.protocol.files import FileBlock, render_file_blocks

SECTION = "## Deep model pacing"
MODELS = ("spark-deep", "spark-rules")


def task() -> str:
    """A rename of a function called from three other files (the deep brain changes all four)."""
    files = {"pkg/store.py": "".join(f"def load{i}(path):\n    return path\n\n\n"
                                     for i in range(4)) + "def load(path):\n    return path\n"}
    for name in ("app", "cli", "jobs"):
        files[f"pkg/{name}.py"] = "from pkg.store import load\n\n\n" + "".join(
            f"def {name}{i}(p):\n    return load(p)\n\n\n" for i in range(6))
    return "rename load to read_path in pkg/store.py\n\n" + render_file_blocks(
        [FileBlock(p, c) for p, c in files.items()])


async def _one_run(ws_url: str, token: str, prompt: str) -> dict[str, dict[str, Any]]:
    stamps: dict[str, list[float]] = {m: [] for m in MODELS}
    done: dict[str, dict[str, Any]] = {}
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"},
                       compression=None, proxy=None, max_size=None) as ws:
        sent = time.perf_counter()
        for model in MODELS:
            await ws.send(json.dumps({"type": "response.create", "model": model,
                                      "input": prompt, "stream_id": model}))
        while len(done) < len(MODELS):
            event = json.loads(await ws.recv())
            lane = event.get("stream_id")
            if event["type"] == "response.output_text.delta":
                stamps[lane].append(time.perf_counter() - sent)
            elif event["type"] == "response.completed":
                done[lane] = event["response"]
            elif event["type"] in ("response.failed", "response.incomplete", "error"):
                raise RuntimeError(f"{lane}: {event}")
    out = {}
    for model in MODELS:
        times, response = stamps[model], done[model]
        tokens = response["usage"]["output_tokens"]
        text = "".join(part["text"] for item in response["output"]
                       for part in item.get("content", ()))
        out[model] = {"ttft": times[0], "total": times[-1], "tokens": tokens,
                      "rate": (tokens - 1) / (times[-1] - times[0]) if len(times) > 1
                      else float("nan"), "files": _files_changed(text)}
    return out


def _files_changed(answer: str) -> int:
    parser = EditStreamParser()
    items = parser.feed(answer) + parser.close()
    return len({item.path for item in items if isinstance(item, FileEdit)})


def measure(runs: int, flags: list[str]) -> dict[str, Any]:
    token = secrets.token_urlsafe(12)
    with start_engine(token, *flags) as engine:
        asyncio.run(_one_run(engine.ws_url, token, task()))  # uncounted: brains load on first use
        results = [asyncio.run(_one_run(engine.ws_url, token, task())) for _ in range(runs)]
    figures: dict[str, Any] = {"runs": runs}
    for model in MODELS:
        for key in ("ttft", "rate", "total", "tokens", "files"):
            figures[f"{model}:{key}"] = statistics.median(r[model][key] for r in results)
    figures["ttft_ratio"] = figures["spark-deep:ttft"] / figures["spark-rules:ttft"]
    figures["rate_ratio"] = figures["spark-rules:rate"] / figures["spark-deep:rate"]
    return figures


def table(f: dict[str, Any]) -> str:
    rows = ["| model | TTFT | rate | answer | output tokens | files changed |",
            "|---|---|---|---|---|---|"]
    for model in MODELS:
        rows.append(f"| `{model}` | {f[f'{model}:ttft'] * 1000:,.0f} ms | "
                    f"{f[f'{model}:rate']:,.1f} tok/s | {f[f'{model}:total']:.2f} s | "
                    f"{f[f'{model}:tokens']:,.0f} | {f[f'{model}:files']:.0f} |")
    runs = f"{f['runs']} run" + ("s" if f["runs"] > 1 else "")
    return ("\n".join(rows) + f"\n\nMedians of {runs}. Deep / fast: TTFT × "
            f"{f['ttft_ratio']:.1f}, rate ÷ {f['rate_ratio']:.1f}.")


def bench_deep(
    runs: int = typer.Option(3, "--runs", min=1, help="Repetitions (medians reported)."),
    engine_flag: list[str] = typer.Option(
        [], "--engine-flag", help="Extra `spark engine serve` flag (repeatable), e.g. "
                                  "--engine-flag=--deep-tps=120."),
) -> tuple[str, str]:
    """The deep model's TTFT and rate against the fast model's, same task, one run."""
    flags = "".join(f" --engine-flag={flag}" for flag in engine_flag)
    return table(measure(runs, engine_flag)), f" --runs {runs}{flags}"


register = bench_command("deep", SECTION, bench_deep)

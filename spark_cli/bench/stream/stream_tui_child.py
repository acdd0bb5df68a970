"""The TUI child of `spark bench stream` (``... ws|chat BASE_URL TOKEN N TPS``): the real
SparkApp, frames rendered; prints the turn's CPU (after a warm-up turn), request → first text
on screen, keystroke → frame p95 while a second turn streams (0 for N under 2,000)."""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

from spark_cli.bench.figures import percentile
from spark_cli.bench.tui import tui_headless as headless


async def measure(url: str, token: str, tokens: int, tps: float, chat: bool,
                  workdir: Path) -> list[float]:
    async def body(app: Any, log: Any) -> dict[str, Any]:
        await headless._warm_up(app)
        start = time.process_time()
        await headless.start_turn(app, tokens)
        await headless._finish(app, 30 + tokens / 100)
        cpu = time.process_time() - start
        await asyncio.sleep(0.05)
        sent = app.session.marks.request_sent_at or 0.0
        shown = log.first_showing(1, after=sent)  # the painter counts each turn from 0
        first = (shown - sent) if shown is not None else float("nan")
        p95 = 0.0
        if tokens >= 2000:
            typing = int(tps * 3)
            await headless.start_turn(app, typing)
            await headless._streaming(app)
            keys, _ = await headless.type_probe(app, log, 40, 0.03,
                                                still=lambda: app.interaction.busy)
            await headless._finish(app, 30 + typing / 100)
            p95 = percentile(keys, 0.95)
        return {"out": [cpu, first, p95]}

    figures = await headless.run_app(url, token, workdir, body, chat=chat)
    out: list[float] = figures["out"]
    return out


def main(argv: list[str]) -> int:
    wire, url, token, tokens, tps = argv[0], argv[1], argv[2], int(argv[3]), float(argv[4])
    figures = asyncio.run(measure(url, token, tokens, tps, wire == "chat", Path.cwd()))
    print(*(f"{value:.6f}" for value in figures), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

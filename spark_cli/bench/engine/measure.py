"""The measuring side of `spark bench engine`: WebSocket clients that ask an engine process
for a fixed number of ``spark-lorem`` tokens and stamp every text-delta frame on arrival."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from websockets.asyncio.client import connect

from spark_cli.bench.engine_process import EngineProcess, start_engine
from spark_cli.protocol.tokens import count_tokens

BENCH_MAX_OUTPUT = 100_000_000
"""Streams here are long (2 s at 2.56M tok/s): lift the engine's 128,000 default."""


def lorem_engine(token: str, tps: float, *, max_streams: int = 64,
                 frame_ms: float = 10.0) -> EngineProcess:
    """The engine process on the endless ``lorem`` brain, no TTFT, long streams allowed."""
    return start_engine(token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                        "--max-streams", str(max_streams), "--frame-ms", f"{frame_ms:g}",
                        "--max-output-tokens", str(BENCH_MAX_OUTPUT))


@dataclass
class Stream:
    """One measured stream: its tokens and the arrival of each text-delta frame."""

    tokens: int = 0
    stamps: list[float] = field(default_factory=list)
    """Arrival time of each text-delta frame."""
    pieces: list[int] = field(default_factory=list)
    """Tokens in each frame (from the final usage: only the total is exact)."""

    @property
    def rate(self) -> float:
        """Tokens per second between the first and the last frame (the first frame's
        tokens were due at the start, so they are not counted)."""
        if len(self.stamps) < 2 or self.tokens < 2:
            return 0.0
        span = self.stamps[-1] - self.stamps[0]
        return (self.tokens - self.pieces[0]) / span if span > 0 else 0.0

    def gaps_ms(self) -> list[float]:
        return [(b - a) * 1000.0 for a, b in zip(self.stamps, self.stamps[1:], strict=False)]


async def one_stream(ws_url: str, token: str, tokens: int) -> Stream:
    """Open a socket, stream ``tokens`` tokens, stamp every delta frame."""
    stream = Stream()
    request = json.dumps({"type": "response.create", "model": "spark-lorem",
                          "input": "benchmark", "max_output_tokens": tokens})
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"},
                       compression=None, proxy=None, max_size=None) as ws:
        await ws.send(request)
        clock = time.perf_counter
        async for raw in ws:
            now = clock()
            if '"response.output_text.delta"' in raw[:48]:
                stream.stamps.append(now)
                stream.pieces.append(count_tokens(json.loads(raw)["delta"]))
                continue
            event: dict[str, Any] = json.loads(raw)
            kind = event.get("type")
            if kind in ("response.completed", "response.incomplete", "response.failed"):
                stream.tokens = event["response"]["usage"]["output_tokens"]
                break
            if kind == "error":
                raise RuntimeError(f"engine error: {event.get('error')}")
    return stream


"""One answer from your provider, measured; and `spark bench oneshot --provider NAME`.

The provider is resolved as `spark edit` resolves it. :func:`measure` opens a fresh channel
and times one answer (connect + send, prefill, first token, tokens/s, total); the probe runs
it on each of the provider's channels, interleaved, and writes nothing to the docs.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from typing import Any

from spark_cli.cli.wiring import open_provider_channel
from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    Message,
    RequestSent,
    ResponseStarted,
    TextDelta,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.config.settings import ProviderSettings, SettingsError, load_settings
from spark_cli.transport.factory import ChannelKind, open_channel

PROMPT = ("Write a self-contained Python module with a small LRU cache class, its docstrings "
          "and a few example calls. Code only.")
LABELS = {"responses_ws": "Responses, WebSocket", "responses_sse": "Responses, SSE",
          "chat_sse": "Chat Completions, SSE", "mock": "bundled engine, WebSocket"}


def channels_for(provider: ProviderSettings) -> list[ChannelKind]:
    """The channels to measure: the provider's own, plus HTTP SSE beside a WebSocket
    (the bundled engine started in-process is measured on its WebSocket only)."""
    kind = provider.kind
    if kind == "mock":
        return ["responses_ws", "responses_sse"] if provider.base_url else ["responses_ws"]
    if kind == "responses_ws":
        return ["responses_ws", "responses_sse"]
    return [kind]


def open_for(provider: ProviderSettings,
             kind: ChannelKind) -> AbstractAsyncContextManager[Channel]:
    """A fresh channel of ``kind`` to ``provider`` (the bundled engine when it has no URL)."""
    if provider.kind == "mock" and not provider.base_url:
        return open_provider_channel(provider, max_retries=0)
    return _direct(provider, kind)


@asynccontextmanager
async def _direct(provider: ProviderSettings, kind: ChannelKind) -> AsyncIterator[Channel]:
    options: dict[str, Any] = {"max_retries": 0, "secrets": provider.secrets}
    if kind == "responses_ws":
        options["warm_spare"] = False
    channel = open_channel(kind, base_url=provider.base_url or "", api_key=provider.api_key,
                           **options)
    try:
        yield channel
    finally:
        await channel.aclose()


@record
class ProviderAnswer:
    """One answer measured on a fresh channel (seconds; NaN where a mark never came)."""

    connect_send_s: float
    """Opening the channel to ``RequestSent``: TCP, TLS, the WebSocket handshake."""
    prefill_s: float
    """``RequestSent`` to ``ResponseStarted`` (a CPU server sends nothing while it reads)."""
    first_token_s: float
    tokens_per_s: float
    total_s: float
    prompt_tokens: int
    prompt_source: str
    """``server`` (its usage) or ``estimated`` (spark's count)."""
    answer_tokens: int
    answer_source: str

    @property
    def ttft_s(self) -> float:
        return self.prefill_s + self.first_token_s


async def measure(provider: ProviderSettings, kind: ChannelKind, text: str,
                  tokens: int) -> ProviderAnswer:
    """One prompt on a fresh channel of ``kind``."""
    request = TurnRequest(provider.model, (Message("user", text),), max_output_tokens=tokens)
    nan = float("nan")
    sent = started = first = last = nan
    chars = 0
    usage: UsageReported | None = None
    opened = time.perf_counter()
    async with open_for(provider, kind) as channel:
        async for event in channel.stream(request):
            if isinstance(event, RequestSent):
                sent = event.at
            elif isinstance(event, ResponseStarted) and started != started:
                started = event.at
            elif isinstance(event, TextDelta):
                last = time.perf_counter()
                first = last if first != first else first
                chars += len(event.text)
            elif isinstance(event, UsageReported):
                usage = event
    ended = time.perf_counter()
    if started != started:  # no first event of its own: the first text is the first event
        started = first
    prompt_tokens, prompt_source = ((usage.input_tokens, "server")
                                    if usage is not None and usage.input_tokens
                                    else (count_tokens(text), "estimated"))
    answer_tokens, answer_source = ((usage.output_tokens, "server")
                                    if usage is not None and usage.output_tokens
                                    else (round(chars / 4), "estimated"))
    span = last - first
    return ProviderAnswer(sent - opened, started - sent, first - started,
                          answer_tokens / span if span > 0 else nan, ended - opened,
                          prompt_tokens, prompt_source, answer_tokens, answer_source)


Runs = dict[str, list[ProviderAnswer]]
"""channel kind -> one dict of figures per answer."""


async def probe(provider: ProviderSettings, reps: int, tokens: int) -> Runs:
    """``reps`` answers per channel, the channels interleaved."""
    kinds = channels_for(provider)
    for kind in kinds:  # import each channel's modules first: their cost is not the network's
        async with open_for(provider, kind):
            pass
    runs: Runs = {kind: [] for kind in kinds}
    for _ in range(reps):
        for kind in kinds:
            text = f"Request {secrets.token_hex(8)}. {PROMPT}"  # new every time: no cache hit
            runs[kind].append(await measure(provider, kind, text, tokens))
    return runs


def probe_table(runs: Runs) -> str:
    """Medians per channel, one column each."""
    kinds = list(runs)

    def row(name: str, key: str, unit: str, digits: int) -> str:
        cells = [f"{statistics.median(getattr(r, key) for r in runs[k]):.{digits}f}{unit}"
                 for k in kinds]
        return f"| {name} | " + " | ".join(cells) + " |"

    return "\n".join([
        "| median | " + " | ".join(LABELS.get(k, k) for k in kinds) + " |",
        "|---|" + "---|" * len(kinds),
        row("connect + send", "connect_send_s", " s", 3),
        row("TTFT", "ttft_s", " s", 3),
        row("tokens/s", "tokens_per_s", "", 0),
        row("answer tokens", "answer_tokens", "", 0),
        row("total", "total_s", " s", 3),
    ])


def probe_command(name: str, reps: int, tokens: int) -> int:
    """Run the probe for provider ``name``, print the table; the exit code."""
    try:
        settings = load_settings(Path.cwd(), {"provider": name}, os.environ)
    except SettingsError as exc:
        print(f"spark bench oneshot: {exc}", flush=True)
        return 2
    provider = settings.provider
    try:
        runs = asyncio.run(probe(provider, reps, tokens))
    except ChannelError as exc:
        print(f"spark bench oneshot: {provider.name}: {exc.message}", flush=True)
        return 3
    where = provider.shown_base_url or "the bundled engine"
    print(f"{provider.name} ({provider.model} at {where}): {reps} answers of up to {tokens} "
          "tokens per channel, each on a fresh connection")
    print(probe_table(runs))
    return 0

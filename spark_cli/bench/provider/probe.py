"""One answer from a provider, measured on a fresh channel, for `spark bench provider` (and
`spark bench oneshot --provider NAME`): connect + send, prefill, first token, tokens/s and
the total; and the channels a provider is measured on (a Responses WebSocket provider's SSE
twin beside it).
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from typing import Any

from spark_cli.cli.wiring import open_provider_channel
from spark_cli.protocol.channel import (
    Channel,
    Message,
    RequestSent,
    ResponseStarted,
    TextDelta,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.config.settings import ProviderSettings
from spark_cli.transport.factory import ChannelKind, open_channel


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

"""The one place that turns resolved Settings into a concrete Channel.

- ``mock`` without a ``base_url``: the bundled engine on an ephemeral loopback port with a
  random token, spoken to over the Responses WebSocket like a real provider; it runs on a
  thread with its own event loop, so the client's work never delays its pacing.
- ``mock`` with a ``base_url``: that running engine (`spark engine serve`), over the WebSocket.
- any other kind: the transport factory with the provider's base URL and key.

A one-shot's request may go ahead of its channel (:func:`send_ahead`). Concrete parts
(engine, transports) are imported only here, for the kind asked for.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from spark_cli.protocol.channel import Channel, TurnRequest
from spark_cli.session.config.settings import ProviderSettings

if TYPE_CHECKING:
    from spark_cli.transport.fast import SentAhead

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection, for a request sent ahead and the channel adopting it
(the channels' own default too)."""
IDLE_TIMEOUT = 10.0
"""The silence limit (also the time allowed to write a request), likewise."""


class WiringError(Exception):
    """The settings cannot become a channel (bad base URL, unknown kind): a usage error."""


@contextlib.asynccontextmanager
async def open_provider_channel(provider: ProviderSettings, *, idle_timeout: float | None = None,
                                one_shot: bool = True, ahead: SentAhead | None = None,
                                first_token_timeout: float | None = None,
                                **channel_options: Any) -> AsyncIterator[Channel]:
    """A channel for ``provider`` (``Settings.provider``), closed (and engine stopped) on exit.

    ``one_shot`` skips the warm spare WebSocket connection a TUI keeps for
    interrupts: a single turn never needs it. Otherwise a bundled engine also
    loads its brain at once (a one-shot loads it within its first token's
    time). ``channel_options`` go to the channel's constructor (e.g.
    ``max_retries``). ``ahead``: what :func:`send_ahead` sent for this provider.
    ``first_token_timeout``: the configured prefill limit (None: derived from the prompt).
    """
    kind = provider.kind
    options: dict[str, Any] = dict(channel_options)
    options.setdefault("secrets", provider.secrets)  # every key spark can see: masked in errors
    if idle_timeout is not None:
        options["idle_timeout"] = idle_timeout
    async with contextlib.AsyncExitStack() as stack:
        base_url, api_key = provider.base_url, provider.api_key
        if kind == "mock":
            if not base_url:
                engine = await stack.enter_async_context(_bundled_engine())
                if not one_shot:  # a session (the TUI): its first turn finds the brain ready
                    engine.state.warm()
                base_url, api_key = engine.url + "/v1", engine.token
            kind = "responses_ws"
        if not base_url:
            raise WiringError(f"provider {provider.name!r} needs a base URL (--base-url)")
        if first_token_timeout is not None:
            options["first_token_timeout"] = first_token_timeout
        if kind == "ollama":  # what the model runs with: its channel goes native beyond it
            from spark_cli.session.window.facts import cached  # deferred: launch -> request

            facts = cached(provider)
            if facts is not None:
                options.update(loaded=facts.loaded, window=facts.window)
        if kind == "responses_ws" and one_shot:
            options["warm_spare"] = False
        if ahead is not None:
            options["ahead"] = ahead
            options.setdefault("connect_timeout", CONNECT_TIMEOUT)  # the ahead's own, so
            options.setdefault("idle_timeout", IDLE_TIMEOUT)  # both sides agree by construction
            stack.callback(ahead.close)  # unread if the channel never adopted it
        from spark_cli.transport.factory import open_channel  # deferred: launch -> request

        try:
            channel = open_channel(kind, base_url=base_url, api_key=api_key, **options)
        except ValueError as exc:  # the URL's userinfo is masked in it; a key elsewhere too
            raise WiringError(provider.secrets.mask(str(exc))) from None
        stack.push_async_callback(channel.aclose)
        yield channel


def send_ahead(provider: ProviderSettings, request: TurnRequest, *,
               idle_timeout: float | None = None) -> SentAhead | None:
    """A one-shot's ``request`` sent now, before asyncio is imported, for
    :func:`open_provider_channel`'s ``ahead``: :func:`spark_cli.transport.fast.send_ahead`
    with this provider's URL, key and the channel's timeouts; None where nothing was sent
    (the bundled engine is not started yet)."""
    if not provider.base_url:
        return None
    from spark_cli.transport.fast import send_ahead as fast_send  # deferred: launch -> request

    kind = "responses_ws" if provider.kind == "mock" else provider.kind
    return fast_send(kind, provider.base_url, provider.api_key, request,
                     connect_timeout=CONNECT_TIMEOUT,
                     write_timeout=IDLE_TIMEOUT if idle_timeout is None else idle_timeout)


@contextlib.asynccontextmanager
async def shared_provider(provider: ProviderSettings) -> AsyncIterator[ProviderSettings]:
    """``provider``, or for the bundled engine one engine started here that every channel
    opened on the result shares (best of N: one engine, N connections)."""
    if provider.kind != "mock" or provider.base_url:
        yield provider
        return
    import dataclasses  # deferred: launch -> request

    async with _bundled_engine() as engine:
        yield dataclasses.replace(provider, base_url=engine.url + "/v1", api_key=engine.token)


@contextlib.asynccontextmanager
async def _bundled_engine() -> AsyncIterator[Any]:
    """The bundled engine for this run, on loopback, a free port and a random token:
    websockets' server alone (no uvicorn: it starts and stops in milliseconds), on its own
    thread and loop."""
    import secrets  # deferred: launch -> request (hmac, hashlib; only for a bundled engine)

    # deferred: launch -> request
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.serving.engine_thread import run_engine_in_thread

    config = EngineConfig(host="127.0.0.1", port=0, token=secrets.token_urlsafe(16))
    async with run_engine_in_thread(config, http=False) as engine:
        yield engine

"""The one place that turns resolved Settings into a concrete Channel.

- ``mock`` without a ``base_url``: the bundled engine is started in-process on
  an ephemeral loopback port with a random token, and spoken to over the
  Responses WebSocket exactly like a real provider (nothing to configure). It
  serves that WebSocket alone (websockets' server, no uvicorn: it starts and
  stops in milliseconds), on a thread with its own event loop, so the client's
  work on its loop never delays the engine's reading and pacing.
- ``mock`` with a ``base_url``: that running engine (e.g. `spark engine serve`),
  over the WebSocket.
- any other kind: the transport factory with the provider's base URL and key.

Concrete parts (engine, transports) are imported only here and only for the
kind asked for, inside the function, so `spark --help` never pays for them.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from spark_cli.protocol.channel import Channel
from spark_cli.session.config.settings import ProviderSettings


class WiringError(Exception):
    """The settings cannot become a channel (bad base URL, unknown kind): a usage error."""


@contextlib.asynccontextmanager
async def open_provider_channel(provider: ProviderSettings, *, idle_timeout: float | None = None,
                                one_shot: bool = True,
                                **channel_options: Any) -> AsyncIterator[Channel]:
    """A channel for ``provider`` (``Settings.provider``), closed (and engine stopped) on exit.

    ``one_shot`` skips the warm spare WebSocket connection a TUI keeps for
    interrupts: a single turn never needs it. Otherwise a bundled engine also
    loads its brain at once (a one-shot loads it within its first token's
    time). ``channel_options`` go to the channel's constructor (e.g.
    ``max_retries``).
    """
    kind = provider.kind
    options: dict[str, Any] = dict(channel_options)
    options.setdefault("secrets", provider.secrets)  # every key spark can see: masked in errors
    if idle_timeout is not None:
        options["idle_timeout"] = idle_timeout
    async with contextlib.AsyncExitStack() as stack:
        if kind == "mock":
            base_url, api_key = provider.base_url, provider.api_key
            if not base_url:
                engine = await stack.enter_async_context(_bundled_engine())
                if not one_shot:  # a session (the TUI): its first turn finds the brain ready
                    engine.state.warm()
                base_url, api_key = engine.url + "/v1", engine.token
            kind = "responses_ws"
        else:
            base_url, api_key = provider.base_url, provider.api_key
        if not base_url:
            raise WiringError(f"provider {provider.name!r} needs a base URL (--base-url)")
        if kind == "responses_ws" and one_shot:
            options["warm_spare"] = False
        from spark_cli.transport.factory import open_channel

        try:
            channel = open_channel(kind, base_url=base_url, api_key=api_key, **options)
        except ValueError as exc:  # the URL's userinfo is masked in it; a key elsewhere too
            from spark_cli.protocol.secrets import Secrets

            raise WiringError(Secrets(provider.secrets).mask(str(exc))) from None
        stack.push_async_callback(channel.aclose)
        yield channel


@contextlib.asynccontextmanager
async def _bundled_engine() -> AsyncIterator[Any]:
    import secrets  # ~2.5 ms (hmac, hashlib): only when an engine is started

    from spark_cli.lazy_modules import defer
    from spark_cli.transport.ws import websockets_lean

    websockets_lean.prepare()  # the engine's server imports websockets first here
    defer("urllib.request")  # websockets' client imports it for proxies; ours has proxy=None
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.serving.engine_thread import run_engine_in_thread

    config = EngineConfig(host="127.0.0.1", port=0, token=secrets.token_urlsafe(16))
    async with run_engine_in_thread(config, http=False) as engine:
        yield engine

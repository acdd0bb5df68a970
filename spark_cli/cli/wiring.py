"""The one place that turns resolved Settings into a concrete Channel: for ``mock`` the
bundled engine (in-process on its own thread, or a running one at ``base_url``), else
the transport factory. A one-shot's request may go ahead (:func:`send_ahead`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from spark_cli.protocol.channel import Channel, TurnRequest
from spark_cli.session.config.settings import ProviderSettings

if TYPE_CHECKING:
    from spark_cli.transport.fast import SentAhead

CONNECT_TIMEOUT = 5.0
"""Seconds to open a connection (sent ahead and adopted alike)."""
IDLE_TIMEOUT = 10.0
"""The silence limit (also the time allowed to write a request), likewise."""


class WiringError(Exception):
    """The settings cannot become a channel (bad base URL, unknown kind): a usage error."""


@contextlib.asynccontextmanager
async def open_provider_channel(provider: ProviderSettings, *, idle_timeout: float | None = None,
                                one_shot: bool = True, ahead: SentAhead | None = None,
                                first_token_timeout: float | None = None,
                                **channel_options: Any) -> AsyncIterator[Channel]:
    """A channel for ``provider``, closed (and engine stopped) on exit.

    ``one_shot``: no warm spare (and the engine loads its brain lazily); ``ahead``: what
    :func:`send_ahead` sent; ``first_token_timeout``: None derives it from the prompt."""
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
    """A one-shot's ``request`` sent now for ``ahead`` (None for the bundled engine)."""
    if not provider.base_url:
        return None
    from spark_cli.transport.fast import send_ahead as fast_send  # deferred: launch -> request

    kind = "responses_ws" if provider.kind == "mock" else provider.kind
    return fast_send(kind, provider.base_url, provider.api_key, request,
                     connect_timeout=CONNECT_TIMEOUT,
                     write_timeout=IDLE_TIMEOUT if idle_timeout is None else idle_timeout)


_SHARED: dict[str, Any] = {"users": 0}  # the first block in starts the engine, the last stops it


@contextlib.asynccontextmanager
async def shared_provider(provider: ProviderSettings) -> AsyncIterator[ProviderSettings]:
    """``provider``, or for the bundled engine the one engine every open block shares."""
    if provider.kind != "mock" or provider.base_url:
        yield provider
        return
    import asyncio  # deferred: launch -> request
    import dataclasses  # deferred: launch -> request

    _SHARED["users"] += 1
    try:
        if "start" not in _SHARED:
            stack = _SHARED["stack"] = contextlib.AsyncExitStack()
            _SHARED["start"] = asyncio.ensure_future(stack.enter_async_context(_bundled_engine()))
        engine = await asyncio.shield(_SHARED["start"])
        engine.state.warm()
        yield dataclasses.replace(provider, base_url=engine.url + "/v1", api_key=engine.token)
    finally:
        _SHARED["users"] -= 1
        if not _SHARED["users"]:
            start, stack = _SHARED.pop("start"), _SHARED.pop("stack")
            with contextlib.suppress(BaseException):
                await start  # (a start cancelled with its only user)
            await stack.aclose()


@contextlib.asynccontextmanager
async def _bundled_engine() -> AsyncIterator[Any]:
    """The bundled engine on loopback (websockets' server alone), on its own thread and loop."""
    import secrets  # deferred: launch -> request (hmac, hashlib; only for a bundled engine)

    # deferred: launch -> request
    from spark_cli.engine.core.config import EngineConfig
    from spark_cli.engine.serving.engine_thread import run_engine_in_thread

    config = EngineConfig(host="127.0.0.1", port=0, token=secrets.token_urlsafe(16))
    async with run_engine_in_thread(config, http=False) as engine:
        yield engine

"""The session's channel over the app's life: connect once, again after a failure, switch.

The CLI hands the TUI a ``Connector``; every turn awaits ``ensure`` first, and ``/model`` /
``/provider`` swap the settings (a new provider reconnects; the conversation carries over).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import Callable

from spark_cli.session.api import ChannelError, Connector, SessionApi
from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.failures import explain

Note = Callable[[str, str], None]


class ProviderLink:
    """Connects ``session`` through ``connect`` and keeps the channel (see the module doc)."""

    def __init__(self, session: SessionApi, connect: Connector, flags: dict[str, object],
                 note: Note, state: Callable[[str], None]) -> None:
        self.session = session
        self.connect = connect
        self.flags = flags
        """The command line's settings flags, plus what /model and /provider changed."""
        self.note = note
        self.state = state
        """Told "ready" or "offline" (the HUD)."""
        self._channels = contextlib.AsyncExitStack()
        self._connected: asyncio.Future[None] | None = None

    async def ensure(self) -> None:
        """Connect once (again after a failure); raises ``ChannelError`` when it cannot."""
        connected = self._connected
        if connected is not None and not (connected.done() and connected.exception()):
            await asyncio.shield(connected)
            return
        connected = self._connected = asyncio.get_running_loop().create_future()
        try:
            channel = await self._channels.enter_async_context(
                self.connect(self.session.settings))
            self.session.attach(channel)
            await self.session.warm()
        except (ChannelError, OSError) as exc:
            error = exc if isinstance(exc, ChannelError) else ChannelError(
                "connection", f"could not start or reach the provider: {exc}")
            connected.set_exception(error)
            connected.exception()  # retrieved: a later turn asks again
            self.state("offline")
            hint = explain(error.kind, error.message, self.session.settings.provider)
            self.note(f"✗ {hint}", "bold red")
            raise error from None
        connected.set_result(None)
        self.state("ready")

    async def reconfigure(self, flags: dict[str, object]) -> Settings | str:
        """New settings from ``flags`` on top of the current ones; the problem otherwise."""
        merged = {**self.flags, **flags}
        if "provider" in flags:
            merged.pop("model", None)  # a provider's own default model
        try:
            settings = load_settings(self.session.root, merged, os.environ)
        except (ValueError, KeyError, TypeError, OSError) as exc:
            return str(exc)
        old = self.session.settings.provider
        self.flags = merged
        self.session.configure(settings)
        new = settings.provider
        if (new.name, new.kind, new.base_url) != (old.name, old.kind, old.base_url):
            await self.aclose()
            self.session.attach(None)
            self._connected = None
        return settings

    @property
    def connected(self) -> bool:
        return self._connected is not None and self._connected.done() and \
            self._connected.exception() is None

    async def aclose(self) -> None:
        await self._channels.aclose()

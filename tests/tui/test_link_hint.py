"""The TUI's connect failure line carries the same next step as `spark edit`'s (a 404 on the
Responses API offers `/provider openai-compatible`)."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import pytest

from spark_cli.protocol.channel import ChannelError
from spark_cli.session.config.settings import ProviderSettings
from spark_cli.tui.link import ProviderLink


async def test_a_404_on_connect_offers_the_provider_command():
    provider = ProviderSettings("openai", "responses_ws", "http://127.0.0.1:9/v1", "m", "k",
                                "OPENAI_API_KEY")
    session: Any = SimpleNamespace(settings=SimpleNamespace(provider=provider), channel=None)

    @contextlib.asynccontextmanager
    async def connect(settings: Any) -> AsyncIterator[Any]:
        raise ChannelError("not_found", "404 not found: HTTP 404 (GET ws://127.0.0.1:9/v1/"
                                        "responses)")
        yield  # pragma: no cover

    notes: list[str] = []
    link = ProviderLink(session, connect, {}, lambda text, style: notes.append(text),
                        lambda s: None)
    with pytest.raises(ChannelError):
        await link.ensure()
    assert notes and notes[0].startswith("✗ 404 not found")
    assert "/provider openai-compatible" in notes[0]

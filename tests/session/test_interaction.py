"""Interaction over real channels to the bundled engine: send, queue, Esc, redirect."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from session_fakes import ScriptedChannel
from waiting import holds, wait_until

from spark_cli.protocol.channel import ChannelError, Overflow, TurnRequest
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    ProseDelta,
    Steered,
    TurnCompleted,
    TurnFailed,
    WaitingToRetry,
)
from spark_cli.session.interaction import (
    Interaction,
    InteractionEvent,
    QueueChanged,
    Redirected,
    TurnEnded,
    TurnStarted,
)

PY = "def total_price(items):\n    return sum(items)\n"


@contextlib.asynccontextmanager
async def _interaction(tmp_path: Path, engine: Any, *, provider: str = "mock",
                       model: str = "spark-lorem",
                       max_output_tokens: int = 400) -> AsyncIterator[tuple[Interaction,
                                                                             list[Any]]]:
    from spark_cli.cli.wiring import open_provider_channel

    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    (root / "app.py").write_text(PY)
    key = "SPARK_API_KEY"
    settings = load_settings(root, {"provider": provider, "base_url": engine.url + "/v1",
                                    "model": model, "max_output_tokens": max_output_tokens},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"), key: engine.token})
    events: list[InteractionEvent] = []
    async with open_provider_channel(settings.provider, idle_timeout=20) as channel:
        session = Session(channel, root, settings)
        interaction = Interaction(session, events.append, files=lambda: ["app.py"])
        async with asyncio.timeout(30):
            yield interaction, events
            await interaction.aclose()


async def _until(events: list[Any], kind: type, count: int = 1) -> None:
    await wait_until(lambda: sum(isinstance(e, kind) for e in events) >= count)


def _texts(events: list[Any]) -> str:
    return "".join(e.text for e in events if isinstance(e, ProseDelta))


async def test_a_message_runs_one_turn_and_edits(tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=5000)
    async with _interaction(tmp_path, engine, model="spark-rules") as (interaction, events):
        interaction.submit("rename total_price to grand_total")
        await _until(events, TurnEnded)
    assert isinstance(events[0], TurnStarted) and events[0].why == "sent"
    final = [e for e in events if isinstance(e, TurnCompleted)]
    assert final and final[0].applied == 1
    assert "grand_total" in (tmp_path / "repo" / "app.py").read_text()


async def test_queued_messages_start_in_order_as_turns_end(tmp_path: Path,
                                                           engine_factory) -> None:
    engine = await engine_factory(tps=2000)
    async with _interaction(tmp_path, engine, max_output_tokens=60) as (interaction, events):
        interaction.submit("first")
        interaction.enqueue("second")
        interaction.enqueue("third")
        assert interaction.queue == ["second", "third"]
        await _until(events, TurnEnded, 3)
    started = [e for e in events if isinstance(e, TurnStarted)]
    assert [(s.text, s.why) for s in started] == [("first", "sent"), ("second", "queued"),
                                                  ("third", "queued")]
    assert isinstance(events[-1], TurnEnded) and interaction.queue == []


async def test_esc_stops_the_stream_and_the_queue_survives_paused(tmp_path: Path,
                                                                  engine_factory) -> None:
    engine = await engine_factory(tps=400)
    async with _interaction(tmp_path, engine, max_output_tokens=5000) as (interaction, events):
        interaction.submit("write a lot")
        interaction.enqueue("then this")
        await _until(events, ProseDelta)
        assert await interaction.interrupt() is True
        await _until(events, TurnEnded)
        shown = len(_texts(events))
        await wait_until(lambda: not engine.state.generating, 5)  # the engine stopped
        await holds(lambda: len(_texts(events)) == shown, 0.2, "nothing arrives after Esc")
        done = [e for e in events if isinstance(e, TurnCompleted)][-1]
        assert (done.status, done.reason) == ("cancelled", "interrupted")
        assert interaction.queue == ["then this"] and interaction.paused
        assert QueueChanged(("then this",), True) in events
        assert not interaction.busy
        interaction.submit("")  # Enter on an empty prompt resumes the queue
        await _until(events, TurnEnded, 2)
    assert [e.text for e in events if isinstance(e, TurnStarted)] == ["write a lot", "then this"]


async def test_redirect_steers_in_band_on_the_websocket(tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=400)
    async with _interaction(tmp_path, engine, max_output_tokens=300) as (interaction, events):
        interaction.submit("write a lot")
        await _until(events, ProseDelta)
        interaction.submit("no, something else")
        await _until(events, TurnEnded)
    assert Redirected("no, something else", "steer") in events
    assert any(isinstance(e, Steered) for e in events)
    assert sum(isinstance(e, TurnStarted) for e in events) == 1  # one turn, steered in place
    history = interaction.session.history
    assert [m.role for m in history][-3:] == ["assistant", "user", "assistant"]
    assert history[-2].content == "no, something else"


async def test_redirect_without_steer_stops_and_resends(tmp_path: Path, engine_factory) -> None:
    engine = await engine_factory(tps=400)
    async with _interaction(tmp_path, engine, provider="openai-compatible",
                            max_output_tokens=2000) as (interaction, events):
        interaction.submit("write a lot")
        await _until(events, ProseDelta)
        interaction.submit("no, something else")
        await _until(events, TurnEnded, 2)
    assert Redirected("no, something else", "resend") in events
    started = [(e.text, e.why) for e in events if isinstance(e, TurnStarted)]
    assert started == [("write a lot", "sent"), ("no, something else", "redirect")]
    first_end = next(e for e in events if isinstance(e, TurnCompleted))
    assert first_end.status == "cancelled"
    history = interaction.session.history
    assert "[interrupted by the user]" in history[1].content  # the partial answer is carried
    assert history[2].content.rstrip().endswith("no, something else")


@pytest.mark.parametrize("text", ["", "   "])
async def test_blank_input_never_starts_a_turn(tmp_path: Path, engine, text: str) -> None:
    async with _interaction(tmp_path, engine) as (interaction, events):
        interaction.submit(text)
        interaction.enqueue(text)
        assert not interaction.busy and events == [QueueChanged((), False)][: len(events)]


async def test_esc_while_connecting_sends_nothing(tmp_path: Path) -> None:
    from session_fakes import ScriptedChannel

    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(PY)
    settings = load_settings(root, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    channel = ScriptedChannel(["hello\n"])
    gate = asyncio.Event()

    async def ready() -> None:
        await gate.wait()

    events: list[InteractionEvent] = []
    interaction = Interaction(Session(channel, root, settings), events.append,
                              files=lambda: ["app.py"], ready=ready)
    interaction.submit("do it")
    assert await interaction.interrupt() is True
    gate.set()
    async with asyncio.timeout(10):
        await interaction.wait()
    assert channel.requests == [] and isinstance(events[-1], TurnEnded) and events[-1].interrupted


class _OverflowOnce(ScriptedChannel):
    """The first request overflows a 2,048 window (the server says both sizes); later ones
    are answered."""

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        if not self.requests:
            self.requests.append(request)
            raise ChannelError("context_length", "the request (3.0k tokens) is larger than "
                               "the model's window (2.0k); the server said (400): too long",
                               overflow=Overflow(3000, 2048))
        async for event in super().stream(request):
            yield event


async def test_an_overflow_is_sent_once_more_within_the_window_it_taught(
        tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(PY)
    settings = load_settings(root, {"provider": "openai-compatible", "model": "m",
                                    "base_url": "http://127.0.0.1:9/v1"}, {})
    channel = _OverflowOnce(["fine"])
    events: list[InteractionEvent] = []
    interaction = Interaction(Session(channel, root, settings), events.append,
                              files=lambda: ["app.py"])
    interaction.submit("explain app.py")
    await _until(events, TurnEnded)
    retried = [e for e in events if isinstance(e, WaitingToRetry)]
    assert len(retried) == 1 and "larger than the model's window (2.0k)" in retried[0].reason
    assert "sending once more within 2,048 tokens" in retried[0].reason
    assert not [e for e in events if isinstance(e, TurnFailed)]
    assert len(channel.requests) == 2 and not channel.requests[1].tools  # sized to 2k
    assert interaction.session.settings.context_window == 2048


async def test_an_overflow_that_teaches_nothing_new_is_not_sent_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    settings = load_settings(root, {"provider": "openai-compatible", "model": "m",
                                    "base_url": "http://127.0.0.1:9/v1"}, {})
    channel = ScriptedChannel(["x"], fail_after=0, fail=ChannelError(
        "context_length", "too long", overflow=Overflow(None, None)))
    events: list[InteractionEvent] = []
    interaction = Interaction(Session(channel, root, settings), events.append)
    interaction.submit("hello")
    await _until(events, TurnEnded)
    assert [e.kind for e in events if isinstance(e, TurnFailed)] == ["context_length"]
    assert len(channel.requests) == 1

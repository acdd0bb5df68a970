"""Every channel against the bundled engine on 127.0.0.1:0 (real server, real wire)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Message,
    Queued,
    Reconnected,
    SteerAccepted,
    Steered,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
    WaitingToRetry,
)
from spark_cli.transport.factory import open_channel

LONG = "".join(f"word{n} " for n in range(40))
TOKEN = "test-token"

Factory = Callable[..., Awaitable[Any]]


class ScriptedBrain:
    """Answers by prompt and records the conversation the engine gave it."""

    name = "scripted"

    def __init__(self, answers: dict[str, str], default: str = LONG) -> None:
        self.answers = answers
        self.default = default
        self.seen: list[list[tuple[str, str]]] = []

    def answer(self, request: Any) -> Iterator[str]:
        self.seen.append([(t.role, t.text) for t in request.conversation])
        yield self.answers.get(request.prompt, self.default)


async def start(engine_factory: Factory, brain: ScriptedBrain, **config: Any) -> Any:
    config.setdefault("ttft_ms", 0)
    config.setdefault("tps", 100_000)
    return await engine_factory(brains=lambda model: brain, **config)


def ws(engine: Any, **options: Any) -> Any:
    options.setdefault("idle_timeout", 3.0)
    return open_channel("responses_ws", base_url=engine.url + "/v1", api_key=TOKEN, **options)


def user(*texts: str) -> TurnRequest:
    return TurnRequest("spark-test", tuple(Message("user", t) for t in texts))


async def collect(channel: Any, request: TurnRequest) -> list[ChannelEvent]:
    async with asyncio.timeout(15):
        return [event async for event in channel.stream(request)]


def text_of(events: list[ChannelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def spy_payloads(channel: Any) -> list[str]:
    sent: list[str] = []
    original = channel._payload

    def payload(*args: Any, **kwargs: Any) -> str:
        text = original(*args, **kwargs)
        sent.append(text)
        return text

    channel._payload = payload
    return sent


# ---- WebSocket ----


async def test_ws_turns_chain_and_the_engine_sees_the_whole_conversation(
    engine_factory: Factory,
) -> None:
    import json

    brain = ScriptedBrain({"hi": "hello there", "next": "sure"})
    engine = await start(engine_factory, brain)
    ch = ws(engine, warm_spare=False)
    sent = spy_payloads(ch)
    first = await collect(ch, user("hi"))
    second = await collect(
        ch,
        TurnRequest(
            "spark-test",
            (Message("user", "hi"), Message("assistant", "hello there"), Message("user", "next")),
        ),
    )
    await ch.aclose()
    assert text_of(first) == "hello there"
    assert text_of(second) == "sure"
    assert isinstance(second[-2], UsageReported) and second[-2].output_tokens > 0
    assert second[-1].status == "completed"  # type: ignore[union-attr]
    body = json.loads(sent[1])
    assert body["previous_response_id"] == first[-1].response_id  # type: ignore[union-attr]
    assert [m["content"] for m in body["input"]] == ["next"]
    assert brain.seen[1] == [("user", "hi"), ("assistant", "hello there"), ("user", "next")]
    assert ch.handshakes == 1


async def test_ws_drop_mid_stream_then_the_next_turn_replays_on_a_new_connection(
    engine_factory: Factory,
) -> None:
    from spark_cli.engine.core.config import FaultConfig

    brain = ScriptedBrain({"again": "ok"})
    engine = await start(engine_factory, brain, faults=FaultConfig(drop_after_tokens=5))
    ch = ws(engine)
    seen: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(15):
            async for event in ch.stream(user("one")):
                seen.append(event)
    assert info.value.kind == "connection"
    assert "before the response finished" in info.value.message
    partial = text_of(seen)
    assert partial and LONG.startswith(partial)
    events = await collect(ch, user("one", "again"))
    await ch.aclose()
    assert isinstance(events[0], Reconnected)
    assert text_of(events) == "ok"  # no output of the dropped turn repeated
    assert brain.seen[-1] == [("user", "one"), ("user", "again")]  # the whole context


async def test_ws_stall_hits_the_idle_timeout(engine_factory: Factory) -> None:
    from spark_cli.engine.core.config import FaultConfig

    faults = FaultConfig(stall_after_tokens=2, stall_ms=5000)
    engine = await start(engine_factory, ScriptedBrain({}), faults=faults)
    ch = ws(engine, idle_timeout=0.3, warm_spare=False)
    with pytest.raises(ChannelError) as info:
        await collect(ch, user("hi"))
    await ch.aclose()
    assert info.value.kind == "timeout"


async def test_ws_malformed_frame_is_a_protocol_error(engine_factory: Factory) -> None:
    from spark_cli.engine.core.config import FaultConfig

    faults = FaultConfig(malformed_after_tokens=2)
    engine = await start(engine_factory, ScriptedBrain({}), faults=faults)
    ch = ws(engine, warm_spare=False)
    with pytest.raises(ChannelError) as info:
        await collect(ch, user("hi"))
    await ch.aclose()
    assert info.value.kind == "protocol"


@pytest.mark.parametrize("kind", ["responses_ws", "chat_sse", "responses_sse"])
async def test_429_waits_what_the_engine_asks(engine_factory: Factory, kind: str) -> None:
    from spark_cli.engine.core.config import FaultConfig

    faults = FaultConfig(http_429_probability=1.0)
    engine = await start(engine_factory, ScriptedBrain({}), faults=faults)
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN, max_retries=1)
    seen: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(15):
            async for event in ch.stream(user("hi")):
                seen.append(event)
    await ch.aclose()
    assert info.value.kind == "rate_limit"
    assert "gave up after 2 attempts" in info.value.message
    waits = [e for e in seen if isinstance(e, WaitingToRetry)]
    assert [w.seconds for w in waits] == [pytest.approx(0.2)]  # the engine's retry-after-ms


async def test_ws_queue_positions_with_one_stream_slot(engine_factory: Factory) -> None:
    engine = await start(engine_factory, ScriptedBrain({}), max_streams=1, tps=400)
    first, second = ws(engine, warm_spare=False), ws(engine, warm_spare=False)
    started = asyncio.Event()

    async def run_first() -> list[ChannelEvent]:
        events: list[ChannelEvent] = []
        async for event in first.stream(user("long")):
            events.append(event)
            if isinstance(event, TextDelta):
                started.set()
        return events

    async with asyncio.timeout(20):
        task = asyncio.create_task(run_first())
        await started.wait()
        queued_events = await collect(second, user("me too"))
        first_events = await task
    await first.aclose()
    await second.aclose()
    assert Queued(1) in queued_events
    assert queued_events[-1].status == "completed"  # type: ignore[union-attr]
    assert not any(isinstance(e, Queued) for e in first_events)


@pytest.mark.parametrize("lines", [False, True], ids=["no-cut-point", "line-cut"])
async def test_ws_steering_against_the_engine(engine_factory: Factory, lines: bool) -> None:
    default = "".join(f"line {n}\n" for n in range(60)) if lines else LONG
    brain = ScriptedBrain({"go left": "turned left"}, default=default)
    engine = await start(engine_factory, brain, tps=400)
    ch = ws(engine, warm_spare=False)
    events: list[ChannelEvent] = []
    steered = False
    async with asyncio.timeout(15):
        async for event in ch.stream(user("start")):
            events.append(event)
            if isinstance(event, TextDelta) and not steered:
                steered = True
                await ch.steer("go left")
    await ch.aclose()
    successors = [e for e in events if isinstance(e, Steered)]
    assert SteerAccepted() in events
    assert len(successors) == 1
    after = events[events.index(successors[0]) :]
    assert text_of(after) == "turned left"
    assert events[-1] == TurnFinished("completed", None, successors[0].response_id)
    before = text_of(events[: events.index(successors[0])])
    if lines:  # cut at a line boundary, well before the old answer's end
        assert before.endswith("\n") and len(before) < len(default)
    else:
        assert before == default


async def test_ws_stop_uses_the_advertised_cancel_extension(engine_factory: Factory) -> None:
    brain = ScriptedBrain({"next": "fine"})
    engine = await start(engine_factory, brain, tps=200)
    ch = ws(engine, warm_spare=False)
    await ch.warm()
    assert ch.capabilities.cancel
    events: list[ChannelEvent] = []
    async with asyncio.timeout(15):
        async for event in ch.stream(user("talk")):
            events.append(event)
            if isinstance(event, TextDelta):
                await ch.stop()
    after = await collect(ch, user("next"))
    await ch.aclose()
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert len(text_of(events)) < len(LONG)
    assert text_of(after) == "fine"
    assert not any(isinstance(e, Reconnected) for e in after)
    assert ch.handshakes == 1


async def test_ws_warm_up_sends_the_context_ahead(engine_factory: Factory) -> None:
    import json

    brain = ScriptedBrain({"rename f": "done"})
    engine = await start(engine_factory, brain)
    ch = ws(engine, warm_spare=False)
    sent = spy_payloads(ch)
    context = TurnRequest("spark-test", (Message("user", "file a.py: def f(): ..."),))
    await ch.warm(context)
    events = await collect(
        ch, TurnRequest("spark-test", (*context.messages, Message("user", "rename f")))
    )
    await ch.aclose()
    assert text_of(events) == "done"
    assert [m["content"] for m in json.loads(sent[1])["input"]] == ["rename f"]
    assert brain.seen[-1] == [("user", "file a.py: def f(): ..."), ("user", "rename f")]


@pytest.mark.parametrize("kind", ["responses_ws", "chat_sse", "responses_sse"])
async def test_a_wrong_key_is_an_auth_error(engine_factory: Factory, kind: str) -> None:
    engine = await start(engine_factory, ScriptedBrain({}))
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key="wrong-key-123456")
    with pytest.raises(ChannelError) as info:
        await collect(ch, user("hi"))
    await ch.aclose()
    assert info.value.kind == "auth"
    assert "wrong-key-123456" not in info.value.message


# ---- HTTP ----


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse"])
async def test_http_turns_against_the_engine(engine_factory: Factory, kind: str) -> None:
    brain = ScriptedBrain({"hi": "hello from http"})
    engine = await start(engine_factory, brain)
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN)
    for _ in range(2):
        events = await collect(ch, user("hi"))
        assert text_of(events) == "hello from http"
        usage = [e for e in events if isinstance(e, UsageReported)]
        assert usage and usage[0].output_tokens > 0
        assert events[-1].status == "completed"  # type: ignore[union-attr]
    await ch.aclose()


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse"])
async def test_http_stall_hits_the_idle_timeout(engine_factory: Factory, kind: str) -> None:
    from spark_cli.engine.core.config import FaultConfig

    faults = FaultConfig(stall_after_tokens=2, stall_ms=5000)
    engine = await start(engine_factory, ScriptedBrain({}), faults=faults)
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN, idle_timeout=0.3)
    seen: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(15):
            async for event in ch.stream(user("hi")):
                seen.append(event)
    await ch.aclose()
    assert info.value.kind == "timeout"
    chars = len(text_of(seen))
    assert chars and f"after {chars:,} characters of output" in info.value.message
    assert not info.value.retryable  # output had started: never replayed


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse"])
async def test_http_drop_mid_stream_is_a_clear_error(engine_factory: Factory, kind: str) -> None:
    from spark_cli.engine.core.config import FaultConfig

    engine = await start(engine_factory, ScriptedBrain({}), faults=FaultConfig(drop_after_tokens=5))
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN)
    seen: list[ChannelEvent] = []
    with pytest.raises(ChannelError) as info:
        async with asyncio.timeout(15):
            async for event in ch.stream(user("hi")):
                seen.append(event)
    await ch.aclose()
    assert info.value.kind == "connection"
    assert "before the response finished" in info.value.message
    partial = text_of(seen)
    assert partial and LONG.startswith(partial)
    assert f"after {len(partial):,} characters of output" in info.value.message
    assert not any(isinstance(e, WaitingToRetry) for e in seen)  # never retried after output


QUEUE_LONG = "".join(f"word{n} " for n in range(400))


async def _behind_a_long_answer(engine: Any, second: Any) -> list[ChannelEvent]:
    """Run ``second`` while another request holds the engine's only stream slot."""
    first = ws(engine, warm_spare=False)
    started = asyncio.Event()

    async def run_first() -> None:
        async for event in first.stream(user("long")):
            if isinstance(event, TextDelta):
                started.set()

    async with asyncio.timeout(30):
        task = asyncio.create_task(run_first())
        await started.wait()
        events = await collect(second, user("me too"))
        await task
    await first.aclose()
    await second.aclose()
    return events


@pytest.mark.parametrize("kind", ["chat_sse", "responses_sse"])
async def test_http_queue_positions_with_one_stream_slot(
    engine_factory: Factory, kind: str
) -> None:
    engine = await start(engine_factory, ScriptedBrain({}, default=QUEUE_LONG[:400]),
                         max_streams=1, tps=400)
    second = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN)
    events = await _behind_a_long_answer(engine, second)
    assert Queued(1) in events
    assert events.index(Queued(1)) < next(
        i for i, e in enumerate(events) if isinstance(e, TextDelta))
    assert events[-1].status == "completed"  # type: ignore[union-attr]


@pytest.mark.parametrize("kind", ["responses_ws", "chat_sse", "responses_sse"])
async def test_the_idle_timeout_waits_while_the_request_is_queued(
    engine_factory: Factory, kind: str
) -> None:
    """The queue wait (~1.5 s) is far longer than the idle timeout (0.4 s): a request the
    server said is queued neither fails nor retries (which would rejoin at the back)."""
    brain = ScriptedBrain({"me too": "served"}, default=QUEUE_LONG)
    engine = await start(engine_factory, brain, max_streams=1, tps=1000)
    second = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN, idle_timeout=0.4)
    events = await _behind_a_long_answer(engine, second)
    assert Queued(1) in events
    assert not any(isinstance(e, WaitingToRetry) for e in events)
    assert text_of(events) == "served"
    assert events[-1].status == "completed"  # type: ignore[union-attr]
    assert len(brain.seen) == 2  # one request each: nothing was sent again


@pytest.mark.parametrize("kind", ["responses_ws", "chat_sse", "responses_sse"])
async def test_max_output_tokens_ends_incomplete(engine_factory: Factory, kind: str) -> None:
    engine = await start(engine_factory, ScriptedBrain({}))
    ch = open_channel(kind, base_url=engine.url + "/v1", api_key=TOKEN)
    request = TurnRequest("spark-test", (Message("user", "hi"),), max_output_tokens=3)
    events = await collect(ch, request)
    await ch.aclose()
    assert events[-1].status == "incomplete"  # type: ignore[union-attr]
    assert events[-1].reason == "max_output_tokens"  # type: ignore[union-attr]
    assert 0 < len(text_of(events)) < len(LONG)


async def test_ws_stop_by_closing_then_the_spare_carries_the_next_turn(
    engine_factory: Factory,
) -> None:
    brain = ScriptedBrain({"next": "fine"})
    engine = await start(engine_factory, brain, tps=200)
    ch = ws(engine, use_cancel_extension=False)
    await ch.warm()
    assert not ch.capabilities.cancel
    await wait_until(lambda: ch.handshakes >= 2, 5)  # the spare opens in the background
    events: list[ChannelEvent] = []
    async with asyncio.timeout(15):
        async for event in ch.stream(user("talk")):
            events.append(event)
            if isinstance(event, TextDelta):
                await ch.stop()
    opened = ch.handshakes
    after = await collect(ch, user("talk", "next"))
    await ch.aclose()
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert opened == 2  # main + spare, the spare already open
    assert after[0] == Reconnected("stopped")
    assert text_of(after) == "fine"
    assert brain.seen[-1] == [("user", "talk"), ("user", "next")]  # replayed on the spare

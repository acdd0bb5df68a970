"""ResponsesWebSocketChannel against scripted servers: exact frames in and out."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from waiting import wait_until
from websockets.asyncio.server import ServerConnection

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    Message,
    Queued,
    Reconnected,
    RequestSent,
    ResponseStarted,
    SteerAccepted,
    Steered,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
    WaitingToRetry,
)
from spark_cli.transport.retry import RetryPolicy
from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel

WS = ServerConnection
Frame = dict[str, Any]
KEY = "sk-test-0123456789abcdef"


async def send(ws: ServerConnection, event: dict[str, Any]) -> None:
    await ws.send(json.dumps(event))


async def respond(
    ws: ServerConnection,
    rid: str,
    pieces: list[str],
    *,
    status: str = "completed",
    reason: str | None = None,
    usage: tuple[int, int] = (3, 2),
) -> None:
    """A well-formed response: created, deltas, terminal (with usage)."""
    await send(ws, {"type": "response.created", "response": {"id": rid, "status": "in_progress"}})
    for piece in pieces:
        await send(ws, {"type": "response.output_text.delta", "delta": piece, "item_id": "m"})
    response: dict[str, Any] = {
        "id": rid,
        "status": status,
        "usage": {"input_tokens": usage[0], "output_tokens": usage[1]},
    }
    if reason is not None:
        response["incomplete_details"] = {"reason": reason}
    await send(ws, {"type": f"response.{status}", "response": response})


def channel(url: str, **options: Any) -> ResponsesWebSocketChannel:
    options.setdefault("idle_timeout", 2.0)
    return ResponsesWebSocketChannel(url, KEY, **options)


def request(*texts: str, instructions: str = "be brief") -> TurnRequest:
    roles = ("user", "assistant")
    messages = tuple(Message(roles[i % 2], t) for i, t in enumerate(texts))  # type: ignore[arg-type]
    return TurnRequest("spark-mini", messages, instructions=instructions)


async def collect(ch: ResponsesWebSocketChannel, req: TurnRequest) -> list[ChannelEvent]:
    async with asyncio.timeout(10):
        return [event async for event in ch.stream(req)]


def text_of(events: list[ChannelEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, TextDelta))


def kinds_of(events: list[ChannelEvent]) -> list[type]:
    """The events' types, a run of deltas as one (deltas already received travel merged)."""
    kinds: list[type] = []
    for event in events:
        if not (type(event) is TextDelta and kinds and kinds[-1] is TextDelta):
            kinds.append(type(event))
    return kinds


def counter() -> dict[str, int]:
    return {"n": 0}


async def echo_turns(ws: WS, number: int, frame: Frame, state: Any) -> None:

    if frame["type"] == "response.create":
        rid = f"resp_{len(state.creates())}"
        await respond(ws, rid, ["Hel", "lo"])


async def test_a_normal_turn_yields_the_events_in_order(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    kinds = kinds_of(events)
    assert kinds == [
        RequestSent,
        ResponseStarted,
        TextDelta,  # "Hel" and "lo", merged when both were in before the read
        UsageReported,
        TurnFinished,
    ]
    assert text_of(events) == "Hello"
    assert events[-1] == TurnFinished("completed", None, "resp_1")
    assert events[-2] == UsageReported(3, 2)
    ((_, frame),) = srv.creates()
    assert frame == {
        "type": "response.create",
        "model": "spark-mini",
        "input": [{"type": "message", "role": "user", "content": "hi"}],
        "instructions": "be brief",
        "store": False,
    }
    assert srv.auth == [f"Bearer {KEY}"]


async def test_chained_turns_send_only_the_new_input(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url, warm_spare=False)
        await collect(ch, request("hi"))
        events = await collect(ch, request("hi", "Hello", "and now?"))
        await ch.aclose()
    assert not any(isinstance(e, Reconnected) for e in events)
    (n1, _), (n2, second) = srv.creates()
    assert n1 == n2 == 1  # one persistent connection
    assert second["previous_response_id"] == "resp_1"
    assert second["input"] == [{"type": "message", "role": "user", "content": "and now?"}]
    assert second["instructions"] == "be brief"


async def test_a_changed_history_is_replayed_whole_on_the_same_connection(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url, warm_spare=False)
        await collect(ch, request("hi"))
        await collect(ch, request("hi", "something else", "next"))
        await ch.aclose()
    (_, _), (n2, second) = srv.creates()
    assert n2 == 1
    assert "previous_response_id" not in second
    assert len(second["input"]) == 3


async def test_a_drop_mid_stream_fails_clearly_and_the_next_turn_replays(ws_server: Any) -> None:
    async def drop_first(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame["type"] != "response.create":
            return
        if number == 1 and len(state.creates()) == 2:
            await ws.send('{"type":"response.created","response":{"id":"r2"}}')
            await ws.send('{"type":"response.output_text.delta","delta":"par"}')
            await ws.send('{"type":"response.output_text.delta","delta":"tial"}')
            await ws.close()
            return
        await respond(ws, f"r{len(state.creates())}", ["ok"])

    async with ws_server(drop_first) as srv:
        ch = channel(srv.url)
        await collect(ch, request("one"))
        seen: list[ChannelEvent] = []
        with pytest.raises(ChannelError) as info:
            async for event in ch.stream(request("one", "ok", "two")):
                seen.append(event)
        assert info.value.kind == "connection"
        assert (
            "connection closed after 7 characters of output (about 2 tokens) before the "
            "response finished" in info.value.message
        )
        assert text_of(seen) == "partial"
        events = await collect(ch, request("one", "ok", "two"))
        await ch.aclose()
    assert isinstance(events[0], Reconnected)
    assert text_of(events) == "ok"  # nothing from the dropped turn repeated
    n3, third = srv.creates()[2]
    assert n3 == 2  # the warm spare
    assert "previous_response_id" not in third
    assert [m["content"] for m in third["input"]] == ["one", "ok", "two"]


async def test_a_stalled_stream_hits_the_idle_timeout(ws_server: Any) -> None:
    async def stall(ws: WS, number: int, frame: Frame, state: Any) -> None:
        await ws.send('{"type":"response.created","response":{"id":"r1"}}')
        await ws.send('{"type":"response.output_text.delta","delta":"x"}')

    async with ws_server(stall) as srv:
        ch = channel(srv.url, idle_timeout=0.2, warm_spare=False)
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await ch.aclose()
    assert info.value.kind == "timeout"
    assert "0.2s" in info.value.message


def rate_limited(headers: dict[str, str], message: str = "Rate limit reached.") -> Any:

    async def behaviour(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if len(state.creates()) == 1:
            await send(
                ws,
                {
                    "type": "error",
                    "status": 429,
                    "error": {
                        "type": "requests",
                        "code": "rate_limit_exceeded",
                        "message": message,
                        "headers": headers,
                    },
                },
            )
        else:
            await respond(ws, "r2", ["done"])

    return behaviour


@pytest.mark.parametrize(
    ("headers", "message", "expected"),
    [
        ({"retry-after-ms": "50"}, "Rate limit reached.", 0.05),
        ({"retry-after": "0.07"}, "Rate limit reached.", 0.07),
        (
            {"x-ratelimit-reset-requests": "60ms", "x-ratelimit-remaining-requests": "0"},
            "Rate limit reached.",
            0.06,
        ),
        ({"x-ratelimit-reset-tokens-minute": "0.04"}, "Rate limit reached.", 0.04),
        ({}, "Rate limit reached. Please try again in 30ms.", 0.03),
    ],
)
async def test_429_waits_what_the_server_asks_then_retries(
    ws_server: Any, headers: dict[str, str], message: str, expected: float
) -> None:
    async with ws_server(rate_limited(headers, message)) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    waits = [e for e in events if isinstance(e, WaitingToRetry)]
    assert len(waits) == 1
    assert waits[0].seconds == pytest.approx(expected)
    assert waits[0].attempt == 1
    assert "rate limited" in waits[0].reason
    assert text_of(events) == "done"
    assert len(srv.creates()) == 2


async def test_a_wait_longer_than_the_cap_fails_saying_how_long(ws_server: Any) -> None:
    async with ws_server(rate_limited({"retry-after": "120"})) as srv:
        ch = channel(srv.url, warm_spare=False, retry_policy=RetryPolicy(max_wait=5))
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await ch.aclose()
    assert info.value.kind == "rate_limit"
    assert "120s" in info.value.message and "5s limit" in info.value.message
    assert len(srv.creates()) == 1


async def test_retries_give_up_after_the_maximum(ws_server: Any) -> None:

    async def always_503(ws: WS, number: int, frame: Frame, state: Any) -> None:
        await send(
            ws,
            {
                "type": "error",
                "status": 503,
                "error": {"type": "server_error", "message": "overloaded"},
            },
        )

    policy = RetryPolicy(max_attempts=3, backoff_base=0.001, backoff_cap=0.002)
    async with ws_server(always_503) as srv:
        ch = channel(srv.url, warm_spare=False, retry_policy=policy)
        seen: list[ChannelEvent] = []
        with pytest.raises(ChannelError) as info:
            async for event in ch.stream(request("hi")):
                seen.append(event)
        await ch.aclose()
    assert info.value.kind == "server"
    assert "gave up after 3 attempts" in info.value.message
    assert [e.attempt for e in seen if isinstance(e, WaitingToRetry)] == [1, 2]
    assert all(0 < e.seconds <= 0.002 for e in seen if isinstance(e, WaitingToRetry))


@pytest.mark.parametrize(
    ("code", "kind"),
    [("insufficient_quota", "quota"), ("context_length_exceeded", "context_length")],
)
async def test_quota_and_context_length_are_never_retried(
    ws_server: Any, code: str, kind: str
) -> None:

    async def refuse(ws: WS, number: int, frame: Frame, state: Any) -> None:
        status = 429 if code == "insufficient_quota" else 400
        await send(
            ws,
            {
                "type": "error",
                "status": status,
                "error": {
                    "type": code,
                    "code": code,
                    "message": f"no: {code}",
                    "headers": {"retry-after-ms": "10"},
                },
            },
        )

    async with ws_server(refuse) as srv:
        ch = channel(srv.url, warm_spare=False)
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await ch.aclose()
    assert info.value.kind == kind
    assert info.value.code == code
    assert not info.value.retryable
    assert len(srv.creates()) == 1


async def test_previous_response_not_found_replays_the_whole_context(ws_server: Any) -> None:

    async def forget(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame.get("previous_response_id"):
            await send(
                ws,
                {
                    "type": "error",
                    "status": 400,
                    "error": {
                        "type": "invalid_request_error",
                        "code": "previous_response_not_found",
                        "message": "Previous response with id 'r1' not found.",
                        "param": "previous_response_id",
                    },
                },
            )
        else:
            await respond(ws, f"r{len(state.creates())}", ["ok"])

    async with ws_server(forget) as srv:
        ch = channel(srv.url, warm_spare=False)
        await collect(ch, request("one"))
        events = await collect(ch, request("one", "ok", "two"))
        await ch.aclose()
    # the same socket carries the replay: no new connection, so no Reconnected
    assert not any(isinstance(e, Reconnected) for e in events)
    assert srv.handshakes == 1
    assert events[-1].status == "completed"  # type: ignore[union-attr]
    creates = srv.creates()
    assert len(creates) == 3
    assert [m["content"] for m in creates[2][1]["input"]] == ["one", "ok", "two"]
    assert "previous_response_id" not in creates[2][1]


async def test_connection_limit_moves_to_a_new_connection(ws_server: Any) -> None:

    async def age_out(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if number == 1 and len(state.creates()) == 2:
            await send(
                ws,
                {
                    "type": "error",
                    "status": 400,
                    "error": {
                        "type": "invalid_request_error",
                        "code": "websocket_connection_limit_reached",
                        "message": "Responses websocket connection limit reached (60 minutes).",
                    },
                },
            )
            await ws.close()
        else:
            await respond(ws, f"r{len(state.creates())}", ["ok"])

    async with ws_server(age_out) as srv:
        ch = channel(srv.url, warm_spare=False)
        await collect(ch, request("one"))
        events = await collect(ch, request("one", "ok", "two"))
        await ch.aclose()
    assert Reconnected("websocket_connection_limit_reached") in events
    number, frame = srv.creates()[2]
    assert number == 2
    assert len(frame["input"]) == 3


async def test_queue_positions_become_queued_events(ws_server: Any) -> None:

    async def queue(ws: WS, number: int, frame: Frame, state: Any) -> None:
        await send(ws, {"type": "response.queued", "position": 2})
        await send(ws, {"type": "response.queued", "position": 1})
        await respond(ws, "r1", ["ok"])

    async with ws_server(queue) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert [e for e in events if isinstance(e, Queued)] == [Queued(2), Queued(1)]


async def test_unknown_events_and_fields_are_ignored(ws_server: Any) -> None:

    async def odd(ws: WS, number: int, frame: Frame, state: Any) -> None:
        await send(ws, {"type": "response.created", "response": {"id": "r1"}, "x": 1})
        await send(ws, {"type": "response.reasoning.delta", "delta": "hmm"})
        await send(ws, {"type": "response.output_text.delta", "delta": "a", "new_field": {}})
        await send(
            ws,
            {
                "type": "response.incomplete",
                "response": {"id": "r1", "incomplete_details": {"reason": "brand_new_reason"}},
            },
        )

    async with ws_server(odd) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await collect(ch, request("hi"))
        await ch.aclose()
    assert text_of(events) == "a"
    assert events[-1] == TurnFinished("incomplete", "brand_new_reason", "r1")


@pytest.mark.parametrize("frame", ["not json", "[1, 2]", '{"no_type": 1}'])
async def test_a_malformed_frame_is_a_protocol_error(ws_server: Any, frame: str) -> None:
    async def bad(ws: WS, number: int, f: Frame, state: Any) -> None:
        await ws.send(frame)

    async with ws_server(bad) as srv:
        ch = channel(srv.url, warm_spare=False)
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await wait_until(lambda: 1 in srv.closed, 5)  # the socket is not trusted after a bad frame
        await ch.aclose()
    assert info.value.kind == "protocol"


async def test_a_rejected_handshake_maps_to_auth_without_the_key(ws_server: Any) -> None:
    body = (
        '{"error": {"message": "Incorrect API key provided: sk-test-0123456789abcdef", '
        '"type": "invalid_request_error", "code": "invalid_api_key"}}'
    )
    async with ws_server(echo_turns, reject=401, reject_body=body) as srv:
        ch = channel(srv.url, warm_spare=False)
        with pytest.raises(ChannelError) as info:
            await collect(ch, request("hi"))
        await ch.aclose()
    assert info.value.kind == "auth"
    assert info.value.status == 401
    assert KEY not in info.value.message and KEY[-8:] not in info.value.message
    assert "Incorrect API key" in info.value.message


async def test_an_unreachable_server_is_a_connection_error() -> None:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    policy = RetryPolicy(max_attempts=2, backoff_base=0.001, backoff_cap=0.001)
    ch = channel(f"ws://127.0.0.1:{port}/v1/responses", retry_policy=policy, warm_spare=False)
    with pytest.raises(ChannelError) as info:
        await collect(ch, request("hi"))
    await ch.aclose()
    assert info.value.kind == "connection"
    assert f"127.0.0.1:{port}" in info.value.message


async def test_steering_yields_steered_and_the_successor_text(ws_server: Any) -> None:

    async def steerable(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame["type"] == "response.create" and len(state.creates()) > 1:
            await respond(ws, "r3", ["more"])
        elif frame["type"] == "response.create":
            await send(ws, {"type": "response.created", "response": {"id": "r1"}})
            await send(ws, {"type": "response.output_text.delta", "delta": "old "})
        elif frame["type"] == "response.steer":
            await send(ws, {"type": "response.steer.accepted"})
            await send(
                ws,
                {
                    "type": "response.incomplete",
                    "response": {"id": "r1", "incomplete_details": {"reason": "steered"}},
                },
            )
            await send(
                ws,
                {
                    "type": "response.created",
                    "response": {"id": "r2", "previous_response_id": "r1"},
                },
            )
            await send(ws, {"type": "response.output_text.delta", "delta": "new"})
            await send(ws, {"type": "response.completed", "response": {"id": "r2"}})

    async with ws_server(steerable) as srv:
        ch = channel(srv.url, warm_spare=False)
        assert ch.capabilities.steer
        events: list[ChannelEvent] = []
        async with asyncio.timeout(10):
            async for event in ch.stream(request("hi")):
                events.append(event)
                if isinstance(event, TextDelta) and event.text == "old ":
                    await ch.steer("go left")
        await collect(ch, request("hi", "old ", "go left", "new", "more"))
        await ch.aclose()
    assert SteerAccepted() in events
    assert Steered("r1", "r2") in events
    after = events[events.index(Steered("r1", "r2")) :]
    assert text_of(after) == "new"
    assert events[-1] == TurnFinished("completed", None, "r2")
    steer_frame = next(f for _, f in srv.received if f["type"] == "response.steer")
    assert steer_frame["previous_response_id"] == "r1"
    assert steer_frame["input"][0]["content"] == "go left"
    last = srv.creates()[-1][1]
    assert last["previous_response_id"] == "r2"
    assert [m["content"] for m in last["input"]] == ["more"]


def endless(extensions_seen: list[str]) -> Any:

    async def behaviour(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame["type"] == "response.cancel":
            extensions_seen.append(frame["response_id"])
            await send(
                ws,
                {
                    "type": "response.incomplete",
                    "response": {
                        "id": frame["response_id"],
                        "incomplete_details": {"reason": "cancelled"},
                    },
                },
            )
            return
        if len(state.creates()) > 1:
            await respond(ws, "r_next", ["fresh"])
            return
        await send(ws, {"type": "response.created", "response": {"id": "r1"}})
        await send(ws, {"type": "response.output_text.delta", "delta": "tok"})

    return behaviour


async def stop_after_first_delta(
    ch: ResponsesWebSocketChannel, req: TurnRequest
) -> list[ChannelEvent]:
    events: list[ChannelEvent] = []
    async with asyncio.timeout(10):
        async for event in ch.stream(req):
            events.append(event)
            if isinstance(event, TextDelta):
                await ch.stop()
    return events


async def test_stop_uses_the_cancel_extension_when_advertised(ws_server: Any) -> None:
    cancelled: list[str] = []
    async with ws_server(endless(cancelled), extensions="response.cancel, response.queued") as srv:
        ch = channel(srv.url, warm_spare=False)
        await ch.warm()
        assert ch.capabilities.cancel
        events = await stop_after_first_delta(ch, request("hi"))
        after = await collect(ch, request("again"))
        await ch.aclose()
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert cancelled == ["r1"]
    assert srv.handshakes == 1  # the socket stayed open
    assert text_of(after) == "fresh"
    assert not any(isinstance(e, Reconnected) for e in after)


async def test_stop_closes_the_socket_and_the_next_turn_uses_the_warm_spare(
    ws_server: Any,
) -> None:
    cancelled: list[str] = []
    async with ws_server(endless(cancelled)) as srv:
        ch = channel(srv.url)
        await ch.warm()
        assert not ch.capabilities.cancel
        await wait_until(lambda: ch.handshakes >= 2, 5)  # the spare opens in the background
        events = await stop_after_first_delta(ch, request("hi"))
        handshakes_before = srv.handshakes
        after = await collect(ch, request("hi", "tok", "again"))
        await ch.aclose()
    assert events[-1].status == "cancelled"  # type: ignore[union-attr]
    assert cancelled == []
    assert 1 in srv.closed  # the first connection was closed by the stop
    assert handshakes_before == 2  # main + spare, both opened before the second turn
    assert after[0] == Reconnected("stopped")
    assert text_of(after) == "fresh"
    number, frame = srv.creates()[-1]
    assert number == 2  # sent on the spare: no handshake on the turn's path
    assert [m["content"] for m in frame["input"]] == ["hi", "tok", "again"]


async def test_warm_with_a_request_sends_the_context_ahead_without_generating(
    ws_server: Any,
) -> None:
    async def primed(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame.get("generate") is False:
            await send(ws, {"type": "response.created", "response": {"id": "warm_1"}})
            await send(ws, {"type": "response.completed", "response": {"id": "warm_1"}})
        else:
            await respond(ws, "r1", ["ok"])

    context = TurnRequest("m", (Message("user", "file a.py: ..."),), instructions="edit well")
    async with ws_server(primed) as srv:
        ch = channel(srv.url, warm_spare=False)
        await ch.warm(context)
        turn = TurnRequest(
            "m", (*context.messages, Message("user", "rename f")), instructions="edit well"
        )
        events = await collect(ch, turn)
        await ch.aclose()
    assert text_of(events) == "ok"
    (_, warm), (_, real) = srv.creates()
    assert warm["generate"] is False
    assert warm["input"][0]["content"] == "file a.py: ..."
    assert real["previous_response_id"] == "warm_1"
    assert [m["content"] for m in real["input"]] == ["rename f"]


async def test_a_slow_consumer_is_not_mistaken_for_a_silent_server(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url, idle_timeout=0.3, warm_spare=False)
        events: list[ChannelEvent] = []
        async with asyncio.timeout(10):
            async for event in ch.stream(request("hi")):
                events.append(event)
                if isinstance(event, ResponseStarted):
                    await asyncio.sleep(0.6)  # a consumer busy twice the idle timeout
        await ch.aclose()
    assert text_of(events) == "Hello"
    assert events[-1].status == "completed"  # type: ignore[union-attr]


async def test_cancelling_the_consumer_still_cancels(ws_server: Any) -> None:
    async def stall(ws: WS, number: int, frame: Frame, state: Any) -> None:
        await send(ws, {"type": "response.created", "response": {"id": "r1"}})

    async with ws_server(stall) as srv:
        ch = channel(srv.url, idle_timeout=5, warm_spare=False)

        started = asyncio.Event()

        async def consume() -> None:
            async for event in ch.stream(request("hi")):
                if isinstance(event, ResponseStarted):
                    started.set()

        task = asyncio.create_task(consume())
        await asyncio.wait_for(started.wait(), 5)  # reading, and the server is silent
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await ch.aclose()


async def test_a_consumer_that_stops_at_turn_finished_keeps_the_chain(ws_server: Any) -> None:
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url, warm_spare=False)
        async with asyncio.timeout(10):
            async for event in ch.stream(request("hi")):
                if isinstance(event, TurnFinished):
                    break
        await collect(ch, request("hi", "Hello", "next"))
        await ch.aclose()
    assert srv.creates()[1][1]["previous_response_id"] == "resp_1"


async def test_an_abandoned_turn_does_not_leak_frames_into_the_next(ws_server: Any) -> None:
    async def slow(ws: WS, number: int, frame: Frame, state: Any) -> None:
        turn = len(state.creates())
        await send(ws, {"type": "response.created", "response": {"id": f"r{turn}"}})
        for piece in ("a", "b", "c"):
            await send(ws, {"type": "response.output_text.delta", "delta": f"{turn}{piece}"})
            await asyncio.sleep(0.05)  # a server pacing its frames
        await send(ws, {"type": "response.completed", "response": {"id": f"r{turn}"}})

    async with ws_server(slow) as srv:
        ch = channel(srv.url)
        async with asyncio.timeout(10):
            async for event in ch.stream(request("one")):
                if isinstance(event, TextDelta):
                    break  # walk away mid-turn without stop()
        events = await collect(ch, request("two"))
        await ch.aclose()
    assert text_of(events) == "2a2b2c"
    assert srv.creates()[-1][0] == 2  # on the spare; the first socket was closed


def steer_then(successor: bool) -> Any:
    async def behaviour(ws: WS, number: int, frame: Frame, state: Any) -> None:
        if frame["type"] == "response.create":
            await send(ws, {"type": "response.created", "response": {"id": "r1"}})
            await send(ws, {"type": "response.output_text.delta", "delta": "old"})
        elif frame["type"] == "response.steer":
            await send(ws, {"type": "response.steer.accepted"})
            # the old response reaches its natural end before any cut point
            await send(ws, {"type": "response.completed", "response": {"id": "r1"}})
            if successor:
                await send(ws, {"type": "response.created", "response": {"id": "r2"}})
                await send(ws, {"type": "response.output_text.delta", "delta": "new"})
                await send(ws, {"type": "response.completed", "response": {"id": "r2"}})

    return behaviour


async def steer_once(ch: ResponsesWebSocketChannel) -> list[ChannelEvent]:
    events: list[ChannelEvent] = []
    async with asyncio.timeout(10):
        async for event in ch.stream(request("hi")):
            events.append(event)
            if event == TextDelta("old"):
                await ch.steer("go left")
    return events


async def test_a_steer_accepted_as_the_response_completes_still_gets_its_successor(
    ws_server: Any,
) -> None:
    async with ws_server(steer_then(successor=True)) as srv:
        ch = channel(srv.url, warm_spare=False)
        events = await steer_once(ch)
        await ch.aclose()
    assert Steered("r1", "r2") in events
    assert text_of(events) == "oldnew"
    assert events[-1] == TurnFinished("completed", None, "r2")
    assert sum(isinstance(e, TurnFinished) for e in events) == 1


async def test_a_promised_successor_that_never_comes_ends_the_turn_as_it_stood(
    ws_server: Any,
) -> None:
    async with ws_server(steer_then(successor=False)) as srv:
        ch = channel(srv.url, warm_spare=False, idle_timeout=0.2)
        events = await steer_once(ch)
        await ch.aclose()
    assert events[-1] == TurnFinished("completed", None, "r1")


async def test_the_key_never_reaches_the_logs(ws_server: Any, caplog: Any) -> None:
    import logging

    caplog.set_level(logging.DEBUG)
    async with ws_server(echo_turns) as srv:
        ch = channel(srv.url)
        await collect(ch, request("hi"))
        await ch.aclose()
    assert srv.auth[0] == f"Bearer {KEY}"  # it was sent
    client_side = [r for r in caplog.records if not r.name.startswith("websockets.server")]
    assert any("Authorization" in r.getMessage() for r in caplog.records)  # DEBUG was on
    assert not any(KEY in r.getMessage() for r in client_side)

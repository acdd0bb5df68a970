"""What a read loop decides (WebSocket and SSE), value in, value out: no socket anywhere."""

from __future__ import annotations

from typing import Any

from spark_cli.protocol.channel import (
    ChannelError,
    Message,
    Queued,
    ResponseStarted,
    SteerAccepted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.transport.errors import provider_error
from spark_cli.transport.reading import Decision, ReadMachine
from spark_cli.transport.responses_fold import ResponsesFold
from spark_cli.transport.silence import prefill_timeout

IDLE, QUEUE = 2.0, 60.0


def machine() -> ReadMachine:
    return ReadMachine(ResponsesFold(), IDLE, QUEUE)


def feed(m: ReadMachine, event: dict[str, Any], link_open: bool = True) -> Any:
    return m.on_event(m.fold.feed(event), link_open)


def created(m: ReadMachine, rid: str = "resp_1") -> Any:
    return feed(m, {"type": "response.created", "response": {"id": rid}})


def delta(text: str = "tok") -> dict[str, Any]:
    return {"type": "response.output_text.delta", "delta": text}


COMPLETED = {"type": "response.completed",
             "response": {"id": "resp_1", "usage": {"input_tokens": 3, "output_tokens": 5}}}


def test_a_text_delta_passes_through_as_itself() -> None:
    m = machine()
    created(m)
    out = feed(m, delta("hi"))
    assert out == TextDelta("hi") and type(out) is TextDelta


def test_events_that_make_nothing_decide_nothing() -> None:
    m = machine()
    assert feed(m, {"type": "response.in_progress"}) is None


def test_the_terminal_event_notes_the_chain_and_yields_usage_first() -> None:
    m = machine()
    created(m)
    step = feed(m, COMPLETED)
    assert step == Decision((UsageReported(3, 5), TurnFinished("completed", None, "resp_1")),
                            done=True, remember=True)


def test_stopping_swallows_text_then_cancels_at_the_terminal_event() -> None:
    m = machine()
    created(m)
    assert m.stop() is True and m.stop() is False
    assert feed(m, delta()) is None
    assert feed(m, COMPLETED) == Decision((TurnFinished("cancelled", None, "resp_1"),),
                                          done=True)
    assert m.over


def test_stopping_on_a_closed_link_cancels_at_the_next_event() -> None:
    m = machine()
    created(m)
    m.stop()
    assert feed(m, {"type": "response.output_item.added"}, link_open=False) is None
    step = feed(m, {"type": "response.steer.accepted"}, link_open=False)
    assert step == Decision((TurnFinished("cancelled", None, "resp_1"),), done=True)


def test_a_non_text_event_while_stopping_still_passes() -> None:
    m = machine()
    created(m)
    m.stop()
    assert feed(m, {"type": "response.steer.accepted"}) == SteerAccepted()


def test_silence_or_a_close_while_stopping_is_a_cancel_not_an_error() -> None:
    for step in (lambda m: m.on_silence(), lambda m: m.on_closed(" (close code 1000)")):
        m = machine()
        created(m)
        m.stop()
        decision = step(m)
        assert decision.error is None and decision.done
        assert decision.emit == (TurnFinished("cancelled", None, "resp_1"),)


def test_silence_before_output_is_a_retryable_stall_that_drops_the_link() -> None:
    m = machine()
    decision = m.on_silence()
    assert decision.drop == "idle timeout" and decision.error is not None
    assert decision.error.kind == "timeout" and decision.error.retryable
    assert "2s before any output (idle_timeout)" in decision.error.message


def test_a_stall_after_the_start_is_retried_on_sse_not_on_the_websocket() -> None:
    on_websocket, on_sse = machine(), ReadMachine(ResponsesFold(), IDLE, QUEUE, retry_started=True)
    for m in (on_websocket, on_sse):
        created(m)
    ws_error, sse_error = on_websocket.on_silence().error, on_sse.on_silence().error
    assert ws_error is not None and not ws_error.retryable  # the connection held the response
    assert sse_error is not None and sse_error.retryable  # a new POST starts afresh


def test_silence_after_output_is_final() -> None:
    m = machine()
    created(m)
    feed(m, delta("x" * 40))
    error = m.on_silence().error
    assert error is not None and not error.retryable
    assert "after 40 characters of output" in error.message


def test_queue_notices_lengthen_the_allowed_silence_and_anything_else_restores_it() -> None:
    m = machine()
    assert feed(m, {"type": "response.queued", "position": 2}) == Queued(2)
    assert m.limit == QUEUE
    assert feed(m, {"type": "response.queued", "position": 1}) == Queued(1)
    error = m.on_silence().error
    assert error is not None and "queued for capacity" in error.message
    assert isinstance(created(m), ResponseStarted)
    assert m.limit == IDLE
    assert not m.queued


def test_a_steer_successor_that_never_starts_ends_the_turn_as_it_would_have() -> None:
    m = machine()
    created(m)
    feed(m, {"type": "response.steer.accepted"})
    assert feed(m, COMPLETED) is None  # the successor is promised: not the end yet
    decision = m.on_silence()
    assert decision.drop == "steer successor missing" and decision.done
    assert decision.emit == (TurnFinished("completed", None, "resp_1"),)


def test_a_close_before_the_end_is_a_retryable_connection_error_with_the_close_code() -> None:
    m = machine()
    decision = m.on_closed(" (close code 1011 overloaded)")
    assert decision.drop == "connection closed" and decision.error is not None
    assert decision.error.retryable and decision.error.kind == "connection"
    assert decision.error.message.endswith("finished (close code 1011 overloaded)")


def test_bad_frames_and_events_drop_the_link_but_a_provider_error_does_not() -> None:
    m = machine()
    bad = m.on_malformed("{not json")
    assert bad.drop == "malformed frame" and bad.error is not None
    assert "'{not json'" in bad.error.message
    refused = ChannelError("protocol", "event without a type")
    assert m.on_bad_event(refused) == Decision(drop="malformed event", error=refused)
    error = provider_error(429, {"message": "slow down", "code": "rate_limit_exceeded"})
    assert m.on_provider_error(error) == Decision(error=error)
    assert m.ended and m.over


def call_events() -> list[dict[str, Any]]:
    item = {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "search"}
    return [
        {"type": "response.output_item.added", "output_index": 0,
         "item": {**item, "arguments": ""}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": '{"pattern": "x"}'},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {**item, "arguments": '{"pattern": "x"}', "status": "completed"}},
    ]


def test_calls_pass_through_as_themselves() -> None:
    m = machine()
    created(m)
    added, piece, done = call_events()
    assert feed(m, added) == ToolCallOpened("call_1", "search")
    assert feed(m, piece) is None
    assert feed(m, done) == ToolCallCompleted(ToolCall("call_1", "search", '{"pattern": "x"}',
                                                       "fc_1"))


def test_stopping_swallows_calls_as_it_swallows_text() -> None:
    m = machine()
    created(m)
    m.stop()
    added, piece, done = call_events()
    assert feed(m, added) is None and feed(m, piece) is None and feed(m, done) is None


def test_a_frame_that_made_several_events_is_one_joined_decision() -> None:
    m = machine()
    created(m)
    final = {"type": "response.completed", "response": {
        "id": "resp_1", "usage": {"input_tokens": 3, "output_tokens": 5},
        "output": [{"type": "function_call", "id": "fc_9", "call_id": "call_9", "name": "search",
                    "arguments": "{}", "status": "completed"}]}}
    step = feed(m, final)
    assert step == Decision((ToolCallOpened("call_9", "search"),
                             ToolCallCompleted(ToolCall("call_9", "search", "{}", "fc_9")),
                             UsageReported(3, 5), TurnFinished("completed", None, "resp_1")),
                            done=True, remember=True)
    assert m.fold.more == ()
    stopping = machine()
    created(stopping)
    stopping.stop()
    assert feed(stopping, final) == Decision((TurnFinished("cancelled", None, "resp_1"),),
                                             done=True)


def _prefilling() -> ReadMachine:
    said = prefill_timeout(90.0, 5000, configured=False)
    return ReadMachine(ResponsesFold(), IDLE, QUEUE, first_token=90.0, prefill=said)


def test_until_the_first_token_the_prefill_limit_applies_and_is_never_retried() -> None:
    m = _prefilling()
    assert m.first_token == 90.0
    created(m)  # a CPU server: created at once, then nothing while it reads the prompt
    silence = m.on_silence()
    assert silence.error is not None and not silence.error.retryable
    assert "no first token" in silence.error.message
    assert "first_token_timeout" in silence.error.message


def test_the_first_output_switches_to_the_idle_limit() -> None:
    m = _prefilling()
    created(m)
    assert m.limit == 90.0
    assert feed(m, delta("hi")) == TextDelta("hi")
    assert m.limit == IDLE
    assert feed(m, delta("more")) == TextDelta("more")  # the hot path again
    silence = m.on_silence()
    assert silence.error is not None and "idle_timeout" in silence.error.message


def test_a_queue_notice_then_more_prefill_keeps_the_first_token_limit() -> None:
    m = _prefilling()
    assert feed(m, {"type": "response.queued", "position": 2}) is not None
    assert m.limit == QUEUE
    created(m)
    assert m.limit == 90.0


def test_for_turn_derives_the_first_token_limit_from_the_prompt_unless_configured() -> None:
    request = TurnRequest("m", (Message("user", "x" * 30_000),))  # ~10k tokens: 60 + 500 s
    derived = ReadMachine.for_turn(ResponsesFold(), request, IDLE, QUEUE, None)
    configured = ReadMachine.for_turn(ResponsesFold(), request, IDLE, QUEUE, 30.0)
    assert (derived.limit, configured.limit) == (560.0, 30.0)
    assert derived.prefill is not None and "from the prompt's size" in derived.prefill.message
    assert configured.prefill is not None and "derived" not in configured.prefill.message

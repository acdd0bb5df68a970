"""Chat Completions tool calls folded from ``delta.tool_calls`` pieces (ChatFold + ChatCalls).

OpenAI-shaped streams are built with the SDK's types and also run through the SDK's own
accumulator (``ChatCompletionStreamState``): spark must find the calls it finds. Other
servers' quirks are written by hand.
"""

from __future__ import annotations

import json
from typing import Any

from openai.lib.streaming.chat import ChatCompletionStreamState
from openai.types.chat import ChatCompletionChunk

from spark_cli.protocol.channel import (
    ChannelEvent,
    ResponseStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
)
from spark_cli.protocol.sse import SSEEvent
from spark_cli.transport.sse.http_chat import ChatFold
from tests.transport.openai_shapes import call_piece, chat_chunk, usage_chunk


def fold_all(chunks: list[dict[str, Any]], *, done: bool = True) -> tuple[list[ChannelEvent],
                                                                          ChatFold]:
    fold = ChatFold()
    out: list[ChannelEvent] = []
    datas = [json.dumps(c) for c in chunks] + (["[DONE]"] if done else [])
    for data in datas:
        first = fold.feed(SSEEvent(data))
        if first is not None:
            out.append(first)
        out += fold.more
        fold.more = ()
    return [e for e in out if type(e) is not ResponseStarted], fold


def sdk_calls(chunks: list[dict[str, Any]]) -> list[tuple[str, str, str]]:
    """The calls the official SDK's accumulator finds in the same chunks."""
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for chunk in chunks:
        if chunk["choices"]:
            state.handle_chunk(ChatCompletionChunk.model_validate(chunk))
    message = state.get_final_completion().choices[0].message
    return [(c.id, c.function.name, c.function.arguments)  # type: ignore[union-attr]
            for c in message.tool_calls or []]


def ours(events: list[ChannelEvent]) -> list[tuple[str, str, str]]:
    return [(e.call.call_id, e.call.name, e.call.arguments) for e in events
            if isinstance(e, ToolCallCompleted)]


OPENAI_TWO_CALLS = [
    chat_chunk(role="assistant", content=None,
               tool_calls=[call_piece(0, call_id="call_a", name="search")]),
    chat_chunk(tool_calls=[call_piece(0, arguments='{"pattern": "caf\\u00')]),
    chat_chunk(tool_calls=[call_piece(0, arguments='e9 \\')]),
    chat_chunk(tool_calls=[call_piece(0, arguments='"x\\""}')]),
    chat_chunk(tool_calls=[call_piece(1, call_id="call_b", name="read_file")]),
    chat_chunk(tool_calls=[call_piece(1, arguments='{"path": "a.py"}')]),
    chat_chunk(finish="tool_calls"),
    usage_chunk(),
]


def test_openai_calls_are_completed_at_the_finish_in_index_order() -> None:
    events, fold = fold_all(OPENAI_TWO_CALLS)
    assert events == [
        ToolCallOpened("call_a", "search"),
        ToolCallOpened("call_b", "read_file"),
        ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "caf\\u00e9 \\"x\\""}')),
        ToolCallCompleted(ToolCall("call_b", "read_file", '{"path": "a.py"}')),
    ]
    assert json.loads(events[2].call.arguments) == {"pattern": 'café "x"'}  # type: ignore[union-attr]
    assert ours(events) == sdk_calls(OPENAI_TWO_CALLS)
    assert fold.deltas == 2 and fold.chars == 0
    assert fold.at_eof() is not None and fold.at_eof().status == "completed"  # type: ignore[union-attr]


def test_a_preamble_streams_as_text_before_the_call() -> None:
    chunks = [
        chat_chunk(role="assistant", content=""),
        chat_chunk(content="Let me look."),
        chat_chunk(tool_calls=[call_piece(0, call_id="call_a", name="search")]),
        chat_chunk(tool_calls=[call_piece(0, arguments='{"pattern": "x"}')]),
        chat_chunk(finish="tool_calls"),
    ]
    events, _ = fold_all(chunks)
    assert events == [TextDelta("Let me look."), ToolCallOpened("call_a", "search"),
                      ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "x"}'))]
    assert ours(events) == sdk_calls(chunks)


def test_a_whole_call_in_the_first_chunk() -> None:
    chunks = [chat_chunk(role="assistant", content=None, tool_calls=[
        call_piece(0, call_id="call_a", name="search", arguments='{"pattern": "x"}')]),
        chat_chunk(finish="tool_calls")]
    events, _ = fold_all(chunks)
    assert events == [ToolCallOpened("call_a", "search"),
                      ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "x"}'))]
    assert ours(events) == sdk_calls(chunks)


def test_the_sdks_own_case_name_and_arguments_for_one_index_in_one_chunk() -> None:
    chunks = [
        chat_chunk(role="assistant", tool_calls=[
            call_piece(0, call_id="call_other", name="other", arguments="{}"),
            call_piece(1, call_id="call_files", name="list_files"),
            call_piece(1, arguments='{"path"')]),
        chat_chunk(tool_calls=[call_piece(1, arguments=": "), call_piece(1, arguments='"."}')]),
        chat_chunk(finish="tool_calls"),
    ]
    events, _ = fold_all(chunks)
    assert ours(events) == sdk_calls(chunks) == [
        ("call_other", "other", "{}"), ("call_files", "list_files", '{"path": "."}')]


def test_stop_after_calls_still_completes_them_and_length_does_not() -> None:
    calls = OPENAI_TWO_CALLS[:6]
    events, fold = fold_all([*calls, chat_chunk(finish="stop")])
    assert len(ours(events)) == 2
    assert fold.at_eof().status == "completed"  # type: ignore[union-attr]
    events, fold = fold_all([*calls, chat_chunk(finish="length")])
    assert ours(events) == [] and [type(e) for e in events] == [ToolCallOpened] * 2
    assert fold.at_eof().reason == "max_output_tokens"  # type: ignore[union-attr]


def test_done_without_any_finish_reason_completes_the_calls() -> None:
    events, _ = fold_all(OPENAI_TWO_CALLS[:6])
    assert len(ours(events)) == 2


def test_pieces_without_an_index_continue_the_last_call_or_start_one_with_a_new_id() -> None:
    def raw(**piece: Any) -> dict[str, Any]:
        return {"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [piece]}}]}

    chunks = [
        raw(id="call_1", type="function", function={"name": "search", "arguments": '{"pat'}),
        raw(function={"arguments": 'tern": "x"}'}),
        raw(id="call_2", type="function", function={"name": "read_file", "arguments": ""}),
        raw(function={"arguments": '{"path": "a.py"}'}),
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    events, _ = fold_all(chunks)
    assert ours(events) == [("call_1", "search", '{"pattern": "x"}'),
                            ("call_2", "read_file", '{"path": "a.py"}')]


def test_whole_calls_without_index_or_id_are_separate_calls_with_made_ids() -> None:
    def whole(name: str, arguments: str) -> dict[str, Any]:
        return {"function": {"name": name, "arguments": arguments}}

    chunks = [{"id": "x", "choices": [{"index": 0, "delta": {
        "role": "assistant", "content": None,
        "tool_calls": [whole("search", '{"pattern": "x"}'), whole("list_files", "{}")]}}]},
        {"id": "x", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}]
    events, _ = fold_all(chunks)
    started = [e for e in events if isinstance(e, ToolCallOpened)]
    found = ours(events)
    assert [(name, args) for _, name, args in found] == [
        ("search", '{"pattern": "x"}'), ("list_files", "{}")]
    assert [s.call_id for s in started] == [c for c, _, _ in found]  # the same made ids
    assert all(c.startswith("call_") for c, _, _ in found) and found[0][0] != found[1][0]


def test_a_server_numbering_every_call_zero_gets_one_call_per_id() -> None:
    def first(call_id: str, name: str, arguments: str) -> dict[str, Any]:
        return {"id": "x", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": call_id, "type": "function",
             "function": {"name": name, "arguments": arguments}}]}}]}

    events, _ = fold_all([first("call_1", "search", "{}"), first("call_2", "list_files", "{}"),
                          chat_chunk(finish="tool_calls")])
    assert ours(events) == [("call_1", "search", "{}"), ("call_2", "list_files", "{}")]


def test_text_only_chunks_make_exactly_what_they_made_before() -> None:
    chunks = [chat_chunk(role="assistant", content="Hel"), chat_chunk(content="lo"),
              chat_chunk(finish="stop"), usage_chunk()]
    events, fold = fold_all(chunks)
    assert events == [TextDelta("Hel"), TextDelta("lo")]
    assert fold.deltas == 2 and not fold.calls

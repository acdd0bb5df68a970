"""Function calls folded from Responses events (OpenAI's shapes, from the SDK's types).

Where a stream is OpenAI's own, the SDK's stream accumulator reads it too and must find
the same calls.
"""

from __future__ import annotations

import json
from typing import Any

from spark_cli.protocol.channel import (
    ChannelEvent,
    ResponseStarted,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    TurnFinished,
)
from spark_cli.transport.responses_fold import ResponsesFold
from tests.transport.openai_shapes import ResponseScript, final_only_call

READ_ARGS = '{"path": "src/shop/caf\\u00e9.py", "start_line": 1}'
SEARCH_ARGS = '{"pattern": "say \\"hi\\""}'


def fold_all(events: list[dict[str, Any]]) -> tuple[list[ChannelEvent], ResponsesFold]:
    """Every channel event the fold makes, the ``more`` ones included, in order."""
    fold = ResponsesFold()
    out: list[ChannelEvent] = []
    for event in events:
        first = fold.feed(json.loads(json.dumps(event)))  # as the wire carries it
        if first is not None:
            out.append(first)
        out += fold.more
        fold.more = ()
    return out, fold


def calls_of(events: list[ChannelEvent]) -> list[ToolCall]:
    return [e.call for e in events if isinstance(e, ToolCallCompleted)]


def without_started(events: list[ChannelEvent]) -> list[ChannelEvent]:
    return [e for e in events if type(e) is not ResponseStarted]


def test_a_preamble_then_two_calls_in_output_order() -> None:
    script = (ResponseScript().created().message("Let me ", "look.")
              .call("search", '{"pattern": ', '"TAX_RATE"}', call_id="call_a", item_id="fc_a")
              .call("read_file", '{"path": "src/tax.py"}', call_id="call_b", item_id="fc_b"))
    events, fold = fold_all(script.completed())
    assert without_started(events) == [
        TextDelta("Let me "), TextDelta("look."),
        ToolCallOpened("call_a", "search"),
        ToolCallCompleted(ToolCall("call_a", "search", '{"pattern": "TAX_RATE"}', "fc_a")),
        ToolCallOpened("call_b", "read_file"),
        ToolCallCompleted(ToolCall("call_b", "read_file", '{"path": "src/tax.py"}', "fc_b")),
        TurnFinished("completed", None, "resp_1"),
    ]
    assert fold.text == "Let me look."
    assert fold.calls.completed == calls_of(events) and not fold.calls.unfinished
    assert [(c.call_id, c.name, c.arguments) for c in calls_of(events)] == script.sdk_calls()


def test_arguments_split_inside_escapes_are_joined_never_parsed() -> None:
    pieces = ('{"path": "src/shop/caf\\u00', 'e9.py", "start_line": 1}')
    script = ResponseScript().created().call("read_file", *pieces, call_id="c1", item_id="fc_1",
                                             arguments_done=False, item_done=False)
    bare_end = {"type": "response.output_item.done", "output_index": 0,
                "item": {"type": "function_call", "id": "fc_1"}}  # no arguments: the pieces say
    events, _ = fold_all([*script.events, bare_end])
    (call,) = calls_of(events)
    assert call.arguments == READ_ARGS
    assert json.loads(call.arguments)["path"] == "src/shop/café.py"
    split_quote = ('{"pattern": "say \\', '"hi\\', '""}')
    script = ResponseScript().created().call("search", *split_quote, call_id="c2",
                                             item_id="fc_2", arguments_done=False)
    item_done = script.events[-1]
    item_done["item"].pop("arguments")  # the item's end without its arguments
    (call,) = calls_of(fold_all(script.events)[0])
    assert call.arguments == SEARCH_ARGS and json.loads(call.arguments) == {"pattern": 'say "hi"'}


def test_a_character_split_between_its_utf16_halves_is_one_character_again() -> None:
    frames = ['{"type":"response.output_item.added","output_index":0,"item":{"type":'
              '"function_call","id":"fc_1","call_id":"c1","name":"search","arguments":""}}',
              '{"type":"response.function_call_arguments.delta","item_id":"fc_1",'
              '"output_index":0,"delta":"{\\"pattern\\": \\"\\ud83d"}',
              '{"type":"response.function_call_arguments.delta","item_id":"fc_1",'
              '"output_index":0,"delta":"\\ude00\\"}"}',
              '{"type":"response.output_item.done","output_index":0,"item":{"type":'
              '"function_call","id":"fc_1","call_id":"c1","name":"search"}}']
    (call,) = calls_of(fold_all([json.loads(f) for f in frames])[0])
    assert call.arguments == '{"pattern": "😀"}'


def test_the_done_events_whole_arguments_win_over_the_pieces() -> None:
    script = ResponseScript().created().call("search", '{"pattern": "TAX', call_id="c1",
                                             item_id="fc_1")
    done = next(e for e in script.events if e["type"] == "response.function_call_arguments.done")
    done["arguments"] = '{"pattern": "TAX_RATE"}'  # a piece the client never saw
    (call,) = calls_of(fold_all(script.completed())[0])
    assert call.arguments == '{"pattern": "TAX_RATE"}'


def test_each_call_completes_exactly_once_whatever_reports_it() -> None:
    script = ResponseScript().created().call("search", '{"pattern": "x"}', call_id="c1",
                                             item_id="fc_1")
    events, _ = fold_all(script.completed())  # arguments done, item done, and the final output
    assert [type(e) for e in without_started(events)] == [
        ToolCallOpened, ToolCallCompleted, TurnFinished]
    only_item_done = ResponseScript().created().call("search", '{"pattern": "x"}',
                                                     call_id="c1", item_id="fc_1",
                                                     arguments_done=False)
    events, _ = fold_all(only_item_done.completed())
    assert calls_of(events) == [ToolCall("c1", "search", '{"pattern": "x"}', "fc_1")]
    only_arguments_done = ResponseScript().created().call("search", '{"pattern": "x"}',
                                                          call_id="c1", item_id="fc_1",
                                                          item_done=False)
    events, _ = fold_all(only_arguments_done.completed())
    assert calls_of(events) == [ToolCall("c1", "search", '{"pattern": "x"}', "fc_1")]


def test_calls_only_in_the_final_response_are_made_once_each_before_its_end() -> None:
    script = ResponseScript().created().call("search", '{"pattern": "x"}', call_id="c1",
                                             item_id="fc_1")
    late = final_only_call("read_file", '{"path": "a.py"}', call_id="c2", item_id="fc_2")
    events, fold = fold_all(script.completed(output=[*script.output, late]))
    assert without_started(events) == [
        ToolCallOpened("c1", "search"),
        ToolCallCompleted(ToolCall("c1", "search", '{"pattern": "x"}', "fc_1")),
        ToolCallOpened("c2", "read_file"),
        ToolCallCompleted(ToolCall("c2", "read_file", '{"path": "a.py"}', "fc_2")),
        TurnFinished("completed", None, "resp_1"),
    ]
    assert fold.finished == TurnFinished("completed", None, "resp_1")
    only_final = ResponseScript().created()
    events, _ = fold_all(only_final.completed(output=[late]))
    assert [type(e) for e in without_started(events)] == [
        ToolCallOpened, ToolCallCompleted, TurnFinished]


def test_a_call_cut_short_is_started_but_never_completed() -> None:
    script = ResponseScript().created().call("search", '{"patt', call_id="c1", item_id="fc_1",
                                             arguments_done=False, status="incomplete")
    events, fold = fold_all([*script.events, {
        "type": "response.incomplete",
        "response": {"id": "resp_1", "status": "incomplete", "output": [script.events[-1]["item"]],
                     "incomplete_details": {"reason": "max_output_tokens"}}}])
    assert without_started(events) == [
        ToolCallOpened("c1", "search"), TurnFinished("incomplete", "max_output_tokens", "resp_1")]
    assert fold.calls.unfinished


def test_a_call_started_counts_as_output_for_the_retry_rule() -> None:
    script = ResponseScript().created().call("search", '{"pattern": "x"}', call_id="c1",
                                             item_id="fc_1", arguments_done=False,
                                             item_done=False)
    fold = fold_all(script.events)[1]
    assert fold.deltas == 1 and fold.text == ""


def test_an_item_whose_opening_never_came_still_starts_before_it_completes() -> None:
    events, _ = fold_all([
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": '{"pattern": '},
        {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0,
         "delta": '"x"}'},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "search",
                  "arguments": '{"pattern": "x"}'}},
    ])
    assert without_started(events) == [
        ToolCallOpened("c1", "search"),
        ToolCallCompleted(ToolCall("c1", "search", '{"pattern": "x"}', "fc_1"))]


def test_other_items_and_events_make_no_calls() -> None:
    events, fold = fold_all([
        {"type": "response.created", "response": {"id": "resp_1"}},
        {"type": "response.output_item.added", "output_index": 0,
         "item": {"type": "reasoning", "id": "rs_1", "summary": []}},
        {"type": "response.output_item.done", "output_index": 0,
         "item": {"type": "reasoning", "id": "rs_1", "summary": []}},
        {"type": "response.completed", "response": {"id": "resp_1", "output": [
            {"type": "reasoning", "id": "rs_1", "summary": []}]}},
    ])
    assert without_started(events) == [TurnFinished("completed", None, "resp_1")]
    assert fold.calls.started == 0

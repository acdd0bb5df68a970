"""Argument tokens are paced and counted like text (pieces counted, never time)."""

from __future__ import annotations

import json
from typing import Any

import httpx
from engine_client import BOTH_SERVERS, send, until, ws_connect
from tool_brain import CHAT_TOOLS, READ_ARGS, SEARCH_ARGS, TOOLS, tool_brains

from spark_cli.engine.core.pieces import argument_pieces
from spark_cli.protocol.tokens import count_tokens

ARG_DELTA = "response.function_call_arguments.delta"


@BOTH_SERVERS
async def test_each_argument_piece_is_a_delta_and_a_token(engine_factory: Any) -> None:
    engine = await engine_factory(brains=tool_brains, tps=400, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="go", tools=TOOLS)
        events = await until(ws)
    deltas = [e["delta"] for e in events if e["type"] == ARG_DELTA]
    assert deltas == argument_pieces(SEARCH_ARGS) + argument_pieces(READ_ARGS)
    final = events[-1]["response"]
    assert final["status"] == "completed"
    assert final["usage"]["output_tokens"] == count_tokens("Let me look first.\n") + len(deltas)


@BOTH_SERVERS
async def test_the_output_limit_cuts_a_call(engine_factory: Any) -> None:
    engine = await engine_factory(brains=tool_brains, tps=400, ttft_ms=0)
    limit = count_tokens("Let me look first.\n") + 3
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="go", tools=TOOLS,
                   max_output_tokens=limit)
        events = await until(ws)
    deltas = [e["delta"] for e in events if e["type"] == ARG_DELTA]
    assert deltas == argument_pieces(SEARCH_ARGS)[:3]
    final = events[-1]
    assert final["type"] == "response.incomplete"
    assert final["response"]["incomplete_details"] == {"reason": "max_output_tokens"}
    cut = final["response"]["output"][1]
    assert (cut["status"], cut["arguments"]) == ("incomplete", "".join(deltas))
    assert final["response"]["usage"]["output_tokens"] == limit
    assert not any(e["type"] == "response.function_call_arguments.done" for e in events)


async def test_chat_sse_pieces_and_finish(engine_factory: Any) -> None:
    engine = await engine_factory(brains=tool_brains, tps=400, ttft_ms=0)
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}],
            "tools": CHAT_TOOLS, "stream_options": {"include_usage": True}}
    async with httpx.AsyncClient(trust_env=False) as client:
        reply = await client.post(engine.url + "/v1/chat/completions", json=body,
                                  headers={"Authorization": "Bearer test-token"})
    chunks = [json.loads(line[6:]) for line in reply.text.split("\n")
              if line.startswith("data: ") and line != "data: [DONE]"]
    pieces = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks
              if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
    firsts = [p for p in pieces if "id" in p]
    assert [(p["index"], p["function"]["name"], p["function"]["arguments"]) for p in firsts] == [
        (0, "search", ""), (1, "read_file", "")]
    rest = [p for p in pieces if "id" not in p]
    assert all(set(p) == {"index", "function"} and set(p["function"]) == {"arguments"}
               for p in rest)
    assert [p["function"]["arguments"] for p in rest] == (
        argument_pieces(SEARCH_ARGS) + argument_pieces(READ_ARGS))
    finish = [c for c in chunks if c["choices"] and c["choices"][0]["finish_reason"]]
    assert finish[0]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["usage"]["completion_tokens"] == (
        count_tokens("Let me look first.\n") + len(rest))
    assert reply.text.endswith("data: [DONE]\n\n")


@BOTH_SERVERS
async def test_a_steer_never_cuts_a_call_in_half(engine_factory: Any) -> None:
    engine = await engine_factory(brains=tool_brains, tps=60, ttft_ms=0)
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="m", input="go", tools=TOOLS)
        events = await until(ws, ARG_DELTA)
        await send(ws, type="response.steer", previous_response_id=events[0]["response"]["id"],
                   input="stop looking")
        events += await until(ws, "response.incomplete", "response.completed")
    final = events[-1]["response"]
    calls = [i for i in final["output"] if i["type"] == "function_call"]
    assert calls and all(c["status"] == "completed" for c in calls)
    assert [c["arguments"] for c in calls] == [SEARCH_ARGS, READ_ARGS][:len(calls)]
    if events[-1]["type"] == "response.incomplete":  # the steer came before the end
        assert final["incomplete_details"] == {"reason": "steered"}

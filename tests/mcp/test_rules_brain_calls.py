"""The bundled rules brain calls one MCP tool when the instruction names it, here through a
real hub and mcp-server-time: the call, the tool's answer back, the brain's report."""

from __future__ import annotations

import json
from collections.abc import Callable

from spark_cli.engine.brains.base import CALL, OUTPUT, BrainCall, BrainRequest, BrainTurn
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig
from tests.mcp.conftest import registry_server

TIME = "mcp__time__get_current_time"


def ask(prompt: str, tools: frozenset[str], *after: BrainTurn) -> list[str | BrainCall]:
    turns = (BrainTurn("user", prompt), *after)
    return list(RulesBrain().answer(BrainRequest("m", "", turns, "search_replace", tools)))


def test_arguments_as_json_or_key_value_words() -> None:
    tools = frozenset({TIME, "read_file"})
    for prompt, expected in [
        ('use time\'s get_current_time with {"timezone": "Asia/Tokyo"}',
         {"timezone": "Asia/Tokyo"}),
        ("please use time's get_current_time with timezone=Europe/Paris n=3 on=true",
         {"timezone": "Europe/Paris", "n": 3, "on": True}),
        ("use time's get_current_time with note='two words'", {"note": "two words"}),
        ("use time's get_current_time", {}),
    ]:
        said = ask(prompt, tools)
        assert said[0] == "I'll call time's get_current_time.\n"
        assert said[1] == BrainCall(TIME, json.dumps(expected)), prompt


def test_a_tool_not_declared_is_said_so() -> None:
    said = "".join(str(s) for s in ask("use time's get_current_time with timezone=UTC",
                                       frozenset({"mcp__git__git_status"})))
    assert "not among this request's tools (mcp__time__get_current_time)" in said
    assert "mcp__git__git_status" in said


async def test_the_call_through_a_real_server_and_the_report(
        make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(McpServerConfig("time", "test", command=registry_server("mcp-server-time")))
    hub.start()
    prompt = "use time's get_current_time with timezone=Europe/Paris"
    said = ask(prompt, frozenset({TIME}))
    call = said[-1]
    assert isinstance(call, BrainCall)
    result = await hub.call(call.name, call.arguments)
    assert result.ok
    report = "".join(map(str, ask(prompt, frozenset({TIME}),
                                  BrainTurn(CALL, call.arguments, "c1", call.name),
                                  BrainTurn(OUTPUT, result.output, "c1"))))
    assert report.startswith("time's get_current_time answered:")
    assert '"timezone": "Europe/Paris"' in report

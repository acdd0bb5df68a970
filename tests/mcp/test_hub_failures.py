"""Servers that exit, hang, start slowly or not at all: error results and notes, never a
stuck call; a crashed server restarts once; the cache declares tools before the server is
up; no server process outlives ``aclose``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig
from tests.mcp.conftest import alive, descendants, script
from tests.waiting import wait_until

ECHO = "mcp__script__echo"


async def test_a_server_that_exits_is_an_error_then_restarted_once(
        make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(script())
    hub.start()
    assert (await hub.call(ECHO, '{"text": "hi"}')).output == "hi"
    crashed = await hub.call("mcp__script__exit_now", "{}")
    assert not crashed.ok and "exited" in crashed.output
    assert not (await hub.call(ECHO, '{"text": "x"}')).ok, "not restarted within the turn"
    assert any("crashed" in n and "restarted on the next turn" in n
               for n in hub.specs().notes)
    hub.new_turn()
    assert (await hub.call(ECHO, '{"text": "back"}')).output == "back"
    assert not (await hub.call("mcp__script__exit_now", "{}")).ok
    hub.new_turn()
    again = await hub.call(ECHO, '{"text": "x"}')
    assert not again.ok and "crashed" in again.output, "restarted once only"
    assert any("crashed" in n and "restarted" not in n for n in hub.specs().notes)


async def test_a_call_past_tool_timeout_is_an_error(make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(script(tool_timeout_s=0.5))
    hub.start()
    result = await hub.call("mcp__script__hang", "{}")
    assert not result.ok and "no answer within 0.5 s (tool_timeout_s)" in result.output
    assert (await hub.call(ECHO, '{"text": "still here"}')).ok


async def test_a_call_waits_for_a_server_still_starting(
        make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(script("script", "--slow", "1"))
    hub.start()
    assert hub.specs().tools == ()
    assert hub.specs().notes == ("MCP server script is starting; its tools join a later "
                                 "request",)
    result = await hub.call(ECHO, '{"text": "waited"}')
    assert result.ok and result.output == "waited"
    assert ECHO in {t.name for t in hub.specs().tools}, "joins the next request once up"


async def test_startup_timeout_and_a_missing_command_fail_with_a_note(
        make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(script("slow", "--slow", "30", startup_timeout_s=0.5),
                   McpServerConfig("missing", "test", command="/nonexistent/server"))
    hub.start()
    result = await hub.call("mcp__slow__echo", '{"text": "x"}')
    assert not result.ok and "did not start within 0.5 s" in result.output
    await wait_until(lambda: len(hub.specs().notes) == 2)
    notes = "\n".join(hub.specs().notes)
    assert "MCP server missing failed: did not start" in notes
    assert "MCP server slow failed" in notes


async def test_the_cache_declares_tools_before_the_server_is_up(
        make_hub: Callable[..., McpHub]) -> None:
    first = make_hub(script())
    first.start()
    assert (await first.call(ECHO, '{"text": "x"}')).ok
    listed = first.specs().tools
    await first.aclose()
    second = make_hub(script())
    second.start()
    assert second.specs().tools == listed, "the first request declares the last run's tools"
    assert (await second.call(ECHO, '{"text": "from cache"}')).output == "from cache"
    other = make_hub(script("script", "--other-args"))
    assert other.specs().tools == (), "other arguments: another key, no cache"
    assert other.specs().notes == ("MCP server script is starting; its tools join a later "
                                   "request",)


async def test_no_server_process_is_left_after_aclose(
        make_hub: Callable[..., McpHub]) -> None:
    before = descendants()
    hub = make_hub(script("one"), script("two"), script("slow", "--slow", "30"))
    hub.start()
    await wait_until(lambda: len(descendants() - before) >= 3, what="three servers spawned")
    started = descendants() - before
    assert (await hub.call("mcp__one__echo", '{"text": "x"}')).ok
    hanging = asyncio.create_task(hub.call("mcp__two__hang", "{}"))
    await hub.aclose()
    assert [pid for pid in started if alive(pid)] == [], "a starting, a busy, an idle server"
    assert not (await hanging).ok, "the pending call ends with an error result"
    assert {s.state for s in hub.status()} == {"stopped"}


async def test_closing_while_the_sdk_loads_starts_no_server(
        make_hub: Callable[..., McpHub], tmp_path: Path) -> None:
    # a short `spark edit` closes the hub before its servers got going: nothing is started
    # (and the exit does not wait for them)
    marker = tmp_path / "started"
    plain = script()
    wrapped = McpServerConfig("script", "test", command="sh",
                              args=("-c", f'touch "{marker}"; exec "$0" "$@"', plain.command,
                                    *plain.args))
    hub = make_hub(wrapped)
    hub.start()
    await hub.aclose()
    assert not marker.exists(), "a server was started after the hub was closed"
    assert hub.status_lines()[0].startswith("script: stopped")

"""A streamable-HTTP server (the script server with ``--http``): headers and the bearer token
reach it, never the model; a missing token variable fails the server with a note naming it."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig
from tests.mcp.conftest import SCRIPT
from tests.waiting import wait_until_sync

TOKEN = "bearer-token-0123456789"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with subprocess.Popen([sys.executable, SCRIPT, "--http", str(port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) as server:
        def listening() -> bool:
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        wait_until_sync(listening, what="the HTTP server listening")
        yield f"http://127.0.0.1:{port}/mcp"
        server.terminate()


def http(url: str, **values: object) -> McpServerConfig:
    return McpServerConfig("web", "test", url=url, **values)  # type: ignore[arg-type]


async def test_headers_and_bearer_token_reach_the_server_masked(
        make_hub: Callable[..., McpHub], url: str) -> None:
    hub = make_hub(http(url, headers={"X-Team": "team-secret-42"},
                        bearer_token_env_var="WEB_TOKEN"), environ={"WEB_TOKEN": TOKEN})
    hub.start()
    auth = await hub.call("mcp__web__header", '{"name": "Authorization"}')
    team = await hub.call("mcp__web__header", '{"name": "X-Team"}')
    assert (auth.ok, auth.output, team.output) == (True, "Bearer ***", "***")
    assert (await hub.call("mcp__web__echo", '{"text": "over http"}')).output == "over http"
    assert TOKEN not in "\n".join(hub.status_lines()) + repr(hub)


async def test_a_missing_token_variable_fails_with_its_name(
        make_hub: Callable[..., McpHub], url: str) -> None:
    hub = make_hub(http(url, bearer_token_env_var="WEB_TOKEN"), environ={})
    hub.start()
    result = await hub.call("mcp__web__echo", '{"text": "x"}')
    assert not result.ok
    assert "WEB_TOKEN (bearer_token_env_var) is not set" in result.output

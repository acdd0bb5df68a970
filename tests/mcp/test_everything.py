"""The reference ``@modelcontextprotocol/server-everything`` (npm), installed by .ci/run into
``$SPARK_MCP_NPM`` (default ``~/.cache/spark-ci/npm-mcp``): its schemas, images and structured
content through the hub. Skipped, saying why, where it is not installed, except in CI."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig

FOLDER = Path(os.environ.get("SPARK_MCP_NPM", Path.home() / ".cache" / "spark-ci" / "npm-mcp"))
SERVER = FOLDER / "node_modules" / ".bin" / "mcp-server-everything"


@pytest.fixture
async def everything(make_hub: Callable[..., McpHub]) -> McpHub:
    if not SERVER.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{SERVER} missing: .ci/run installs it with npm")
        pytest.skip(f"{SERVER} not installed (npm install --prefix {FOLDER} "
                    "@modelcontextprotocol/server-everything)")
    hub = make_hub(McpServerConfig("everything", "test", command=str(SERVER), args=("stdio",),
                                   startup_timeout_s=30))
    hub.start()
    return hub


async def test_echo_sum_and_every_schema_declared(everything: McpHub) -> None:
    echo = await everything.call("mcp__everything__echo", '{"message": "hi"}')
    assert echo.ok and echo.output == "Echo: hi"
    total = await everything.call("mcp__everything__get-sum", '{"a": 2, "b": 3}')
    assert total.ok and "5" in total.output
    declared = everything.specs().tools
    assert len(declared) >= 10
    assert all(t.parameters["type"] == "object" and "$schema" not in t.parameters
               for t in declared)


async def test_an_image_is_a_note_and_bad_arguments_an_error(everything: McpHub) -> None:
    image = await everything.call("mcp__everything__get-tiny-image", "{}")
    assert image.ok and "[image/png image," in image.output and "not shown]" in image.output
    assert "iVBOR" not in image.output
    bad = await everything.call("mcp__everything__get-sum", '{"a": "two"}')
    assert not bad.ok


async def test_structured_content(everything: McpHub) -> None:
    result = await everything.call("mcp__everything__get-structured-content",
                                   '{"location": "Chicago"}')
    assert result.ok
    assert "temperature" in json.loads(result.output.splitlines()[0])

"""The hub against real servers from the registry: mcp-server-time and mcp-server-git."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig
from tests.mcp.conftest import registry_server, script

TIME = "mcp__time__get_current_time"


def time_server(**values: object) -> McpServerConfig:
    return McpServerConfig("time", "test", command=registry_server("mcp-server-time"),
                           **values)  # type: ignore[arg-type]


async def test_time_server_lists_and_answers(make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(time_server())
    hub.start()
    result = await hub.call(TIME, '{"timezone": "Europe/Paris"}')
    assert result.ok, result.output
    assert json.loads(result.output)["timezone"] == "Europe/Paris"
    declared = {t.name: t for t in hub.specs().tools}
    assert set(declared) == {TIME, "mcp__time__convert_time"}
    assert declared[TIME].parameters["required"] == ["timezone"]
    assert "timezone" in declared[TIME].description.lower()
    assert hub.server_of(TIME) == "time"


async def test_bad_arguments_are_error_results(make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(time_server())
    hub.start()
    wrong_type = await hub.call(TIME, '{"timezone": 3}')
    assert not wrong_type.ok and "timezone" in wrong_type.output
    not_json = await hub.call(TIME, '{"timezone": ')
    assert not not_json.ok and "not valid JSON" in not_json.output
    not_object = await hub.call(TIME, '["Europe/Paris"]')
    assert not not_object.ok and "JSON object" in not_object.output
    unknown = await hub.call("mcp__time__nope", "{}")
    assert not unknown.ok and "no MCP tool mcp__time__nope" in unknown.output
    assert (await hub.call(TIME, '{"timezone": "Asia/Tokyo"}')).ok, "the server lives on"


async def test_git_server_status_of_a_repo(make_hub: Callable[..., McpHub],
                                           tmp_path: Path) -> None:
    repo = tmp_path / "work"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new_file.txt").write_text("hello\n")
    hub = make_hub(McpServerConfig("git", "test", command=registry_server("mcp-server-git"),
                                   args=("--repository", str(repo))))
    hub.start()
    result = await hub.call("mcp__git__git_status", json.dumps({"repo_path": str(repo)}))
    assert result.ok, result.output
    assert "new_file.txt" in result.output


async def test_allowed_only_by_allowed_tools(make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(time_server(allowed_tools=("convert_time",)))
    hub.start()
    await hub.call(TIME, '{"timezone": "UTC"}')
    # get_current_time is annotated readOnlyHint: true, which alone allows nothing
    assert not hub.allowed(TIME)
    assert hub.allowed("mcp__time__convert_time")
    assert not hub.allowed("read_file")


async def test_env_values_never_reach_results_status_or_repr(
        make_hub: Callable[..., McpHub]) -> None:
    secret = "s3cret-value-of-the-server"
    hub = make_hub(script(env={"SERVER_TOKEN": secret}))
    hub.start()
    result = await hub.call("mcp__script__env_value", '{"name": "SERVER_TOKEN"}')
    assert result.ok and result.output == "***", "the server got it, the model does not"
    shown = "\n".join([*hub.status_lines(), repr(hub), repr(hub.status()),
                       repr(hub.specs()), result.summary])
    assert secret not in shown and "SERVER_TOKEN" in shown


async def test_status_lists_servers_states_tools_and_notes(
        make_hub: Callable[..., McpHub]) -> None:
    hub = make_hub(time_server(), McpServerConfig("off", "user file x", command="never-run",
                                                  enabled=False))
    hub.start()
    assert (await hub.call(TIME, '{"timezone": "UTC"}')).ok
    lines = hub.status_lines()
    assert lines[0].startswith("time: ready (stdio ") and lines[0].endswith("; test)")
    assert lines[1] == "  tools: get_current_time, convert_time"
    assert lines[2:] == ["off: off (stdio never-run; disabled; user file x)", "  tools: (none yet)",
                         "  note: disabled (enabled = false)"]
    assert hub.specs().notes == (), "a disabled server is no note in requests"
    assert "mcp__off__" not in " ".join(t.name for t in hub.specs().tools)
    assert McpHub([], Path(".")).status_lines() == ["no MCP servers configured (docs/mcp.md)"]

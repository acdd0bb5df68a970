"""What a repo's project layer would set, shown before the user trusts it (`spark trust`,
the TUI's start question): the covered files, provider settings, MCP servers with what they
run, the commands policy, ``allowed_commands``, ``test_command``, and the keys a project
file may not set (ignored even when trusted)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from spark_cli.session.config.layers import (
    SettingsError,
    parse_file,
    project_config_path,
    read_toml,
    user_config_path,
)
from spark_cli.session.config.trust import TrustState

_SHOWN_FIRST = ("provider", "model", "commands", "allowed_commands", "test_command",
                "best_of_check")


def project_lines(state: TrustState, env: Mapping[str, str]) -> list[str]:
    """One line per thing the project layer would set, indented under a heading."""
    root = Path(state.root)
    lines = [f"project files of {root}:", *(f"  {name}" for name in state.files)]
    path = project_config_path(root)
    if not path.is_file():
        return lines
    from spark_cli.mcp.mcp_config import McpConfigError, read_servers  # deferred: only shown here

    try:
        layer = parse_file(path, "project file", user_config_path(env))
        servers = read_servers([("project file", path)], read_toml)
    except (SettingsError, McpConfigError) as exc:
        return [*lines, f"  {path.name} cannot be read: {exc}"]
    values = layer.values
    keys = [*[k for k in _SHOWN_FIRST if k in values],
            *sorted(k for k in values if k not in _SHOWN_FIRST)]
    lines.append(f"{path.relative_to(root)} would set:")
    lines += [f"  {key} = {values[key]!r}" for key in keys]
    lines += [f"  [providers.{name}] {key} = {value!r}"
              for name, table in layer.providers.items() for key, value in table.items()]
    lines += [f"  MCP server {server.describe()}" for server in servers]
    if not (keys or layer.providers or servers):
        lines.append("  (nothing)")
    ignored = [*layer.ignored, *(line for s in servers for line in s.ignored)]
    if ignored:
        lines.append("never from a project file, even trusted:")
        lines += [f"  {line.removeprefix(f'{path}: ')}" for line in ignored]
    return lines

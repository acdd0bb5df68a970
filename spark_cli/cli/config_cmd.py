"""`spark config [--json]`: the resolved settings, each with where it came from; keys masked.

A bad config file is exit 2 with its path and key; missing settings are listed as problems
(exit 0). The window is asked of the live server (``--forget-window`` drops a learned one)."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import typer

from spark_cli.cli import options
from spark_cli.cli.edit.edit_settings import edit_flags, resolved
from spark_cli.mcp.mcp_config import McpConfigError, McpServerConfig, config_lines, read_servers


def sandbox_line() -> str:
    """The sandbox commands run in (``commands = "sandbox"``, and under ``ask``), or why none."""
    from spark_cli.checks.sandbox import Sandbox, find_sandbox  # deferred: spark --help

    found = find_sandbox()
    if isinstance(found, Sandbox):
        return f"{found.name} ({found.path})"
    return f"none: {found.reason}; {found.fix}"


def _rows(settings: Any) -> list[tuple[str, str, str]]:
    data = settings.as_dict()
    rows = []
    for key, value in data.items():
        if key == "key_env":
            continue  # shown with the key's source
        shown = "(none)" if value is None else str(value).lower() if isinstance(value, bool) \
            else str(value)
        source = settings.sources.get(key, "default")
        if key == "api_key" and data.get("key_env") and source == "not set":
            source = f"not set: export {data['key_env']}"
        if key == "context_window" and source.startswith(("unknown: ", "learned ")):
            shown, source = source, ("forget it: spark config --forget-window"
                                     if source.startswith("learned ") else "")
        rows.append((key, shown, source))
    return rows


def render_text(settings: Any, user_path: Path, project_path: Path,
                servers: Sequence[McpServerConfig] = ()) -> str:
    """The human form: one aligned line per setting, the MCP servers, the files, problems."""
    rows = _rows(settings)
    width = max(len(value) for _, value, source in rows if source)
    lines = [f"{key:<20} {value:<{width}}  ({source})" if source else f"{key:<20} {value}"
             for key, value, source in rows]
    lines += ["", *config_lines(servers), ""]
    trust = settings.trust
    for label, path in (("user config", user_path), ("project config", project_path)):
        state = "read" if str(path) in settings.files else "not trusted: ignored" if \
            path.is_file() and label == "project config" else "not found"
        lines.append(f"{label:<20} {path} ({state})")
    if trust is not None:
        lines.append(f"{'trust':<20} {trust.line()}")
    lines += [f"ignored: {line}" for line in settings.ignored]
    lines.append(f"{'sandbox':<20} {sandbox_line()}")
    for problem in settings.problems:
        lines.append(f"problem: {problem}")
    return "\n".join(lines)


def render_json(settings: Any, user_path: Path, project_path: Path,
                servers: Sequence[McpServerConfig] = ()) -> str:
    payload = {
        "mcp_servers": [{"name": s.name, "server": s.describe(), "source": s.source}
                        for s in servers],
        "settings": settings.as_dict(),
        "sources": dict(settings.sources),
        "files": {"user": str(user_path), "project": str(project_path),
                  "read": list(settings.files)},
        "problems": list(settings.problems),
        "trust": None if settings.trust is None else {
            "status": settings.trust.status, "files": list(settings.trust.files),
            "problem": settings.trust.problem},
        "ignored": list(settings.ignored),
        "sandbox": sandbox_line(),
    }
    return json.dumps(payload, indent=2)


def register(app: typer.Typer) -> None:
    @app.command("config")
    def config_command(
        as_json: bool = typer.Option(False, "--json", help="Print JSON instead of text."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd)."),
        provider: str | None = options.PROVIDER,
        model: str | None = options.MODEL,
        base_url: str | None = options.BASE_URL,
        edit_format: str | None = typer.Option(None, "--format", "--edit-format",
                                               help="search_replace or apply_patch."),
        forget_window: bool = typer.Option(False, "--forget-window",
                                           help="Forget a window learned at an overflow."),
    ) -> None:
        """Show the resolved settings and where each came from (API keys masked)."""
        # deferred: spark --help
        from spark_cli.session.config.layers import (
            SettingsError,
            config_files,
            project_config_path,
            user_config_path,
        )
        from spark_cli.session.window.facts import forget  # deferred: spark --help

        base = root or Path.cwd()
        flags = edit_flags(provider=provider, model=model, base_url=base_url,
                           edit_format=edit_format)
        user_path, project_path = user_config_path(os.environ), project_config_path(base)
        try:  # the window as a turn would have it: configured, known, or asked now
            settings = resolved(base, flags, check=False, fresh=True)
            if forget_window:
                settings = forget(settings)
            servers = read_servers(config_files(base, os.environ))
        except (SettingsError, McpConfigError) as exc:
            typer.echo(f"spark config: {exc}", err=True)
            raise typer.Exit(2) from None
        render = render_json if as_json else render_text
        # a key may hide in any value (a base URL's query, a model name): mask them all
        shown = settings.provider.secrets.mask(render(settings, user_path, project_path,
                                                               servers))
        typer.echo(shown)

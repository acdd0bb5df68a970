"""What a request carries at each window size, and the budget it is checked against."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from spark_cli.protocol.channel import ToolSpec
from spark_cli.record import record
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.assemble import Budget
from spark_cli.session.window.facts import is_hint

SHORT_BELOW = 8_192
BARE_BELOW = 4_096
BARE_NOTE = ("The repository map and the tools are left out: the model's window ({window:,} "
             "tokens) is too small for them. Work from the files shown; ask the user for any "
             "other file you need.")


@record
class Plan:
    """What one request carries."""

    short: bool
    tools: bool
    repo_map: bool
    note: str = ""
    """Said in the system prompt when the map and the tools are left out."""


def plan_for(settings: Settings) -> Plan:
    """Short prompt and tools below ``SHORT_BELOW``; neither map nor tools below ``BARE_BELOW``."""
    window = settings.context_window
    bare = window < BARE_BELOW
    return Plan(short=window < SHORT_BELOW, tools=settings.tools and not bare,
                repo_map=not bare, note=BARE_NOTE.format(window=window) if bare else "")


def budget_of(settings: Settings) -> Budget:
    return Budget(settings.context_window, settings.max_output_tokens, settings.token_scale,
                  firm=not is_hint(settings))


def short_spec(spec: ToolSpec) -> ToolSpec:
    """``spec`` with its first sentence only and no parameter descriptions."""
    first = spec.description.split(". ", 1)[0].rstrip(".") + "."
    return ToolSpec(spec.name, first, _bare(spec.parameters))


def _bare(schema: Mapping[str, Any]) -> dict[str, Any]:
    props = schema.get("properties")
    if not isinstance(props, dict):
        return dict(schema)
    return {**schema, "properties": {name: {k: v for k, v in prop.items() if k != "description"}
                                     for name, prop in props.items() if isinstance(prop, dict)}}

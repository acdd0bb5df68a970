"""The provider presets: which wire protocol, where, which key, which model by default."""

from __future__ import annotations

from typing import Literal

from spark_cli.record import record

ChannelKind = Literal["mock", "responses_ws", "chat_sse", "responses_sse", "ollama"]
EditFormat = Literal["search_replace", "apply_patch"]
EDIT_FORMATS: tuple[EditFormat, ...] = ("search_replace", "apply_patch")
CommandPolicy = Literal["ask", "sandbox", "off", "full-access"]
COMMAND_POLICIES: tuple[CommandPolicy, ...] = ("ask", "sandbox", "off", "full-access")
"""Commands: ask, sandbox, off, or unsandboxed without asking (a flag or the user config only)."""
FULL_ACCESS = "commands run without asking and without a sandbox"
"""What every front end says first under ``full-access``."""
KINDS: tuple[ChannelKind, ...] = ("mock", "responses_ws", "chat_sse", "responses_sse",
                                  "ollama")
OVERRIDE_KEY_ENV = "SPARK_API_KEY"


@record
class Preset:
    """A known provider: its channel, endpoint, key variable, model and edit format."""

    name: str
    kind: ChannelKind
    base_url: str | None
    key_env: str | None
    model: str | None
    """None: the user must name one (a generic endpoint serves whatever it serves)."""
    edit_format: EditFormat
    needs_base_url: bool = False
    needs_key: bool = False


PRESETS: dict[str, Preset] = {
    "mock": Preset("mock", "mock", None, None, "gpt-5.3-codex-spark", "search_replace"),
    "openai": Preset("openai", "responses_ws", "https://api.openai.com/v1", "OPENAI_API_KEY",
                     "gpt-5.3-codex-spark", "apply_patch", needs_key=True),
    "cerebras": Preset("cerebras", "chat_sse", "https://api.cerebras.ai/v1", "CEREBRAS_API_KEY",
                       "gpt-oss-120b", "search_replace", needs_key=True),
    "openai-compatible": Preset("openai-compatible", "chat_sse", None, OVERRIDE_KEY_ENV, None,
                                "search_replace", needs_base_url=True),
    "ollama": Preset("ollama", "ollama", "http://127.0.0.1:11434/v1", OVERRIDE_KEY_ENV, None,
                     "search_replace"),
}
DEFAULT_PROVIDER = "mock"


def preset(name: str) -> Preset:
    """The preset called ``name`` (docs/providers.md); a ValueError naming the known ones."""
    try:
        return PRESETS[name]
    except KeyError:
        known = ", ".join(PRESETS)
        raise ValueError(f"unknown provider {name!r}; use one of {known}") from None

"""Resolved settings: defaults < user config < project config < environment < flags.

User file: ``$SPARK_CONFIG_DIR/config.toml`` (else ``~/.config/spark/config.toml``);
project file: ``<root>/.spark/config.toml``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import MISSING, field, fields, replace
from pathlib import Path
from typing import Any

from spark_cli.protocol.secrets import NO_SECRETS, Secrets, mask_url
from spark_cli.record import record
from spark_cli.session.config.layers import (
    PROVIDER_KEYS,
    PROVIDER_SPECIFIC,
    SETTING_KEYS,
    Layer,
    SettingsError,
    chosen_provider,
    env_layer,
    file_layers,
    flag_layer,
    overlay,
)
from spark_cli.session.config.presets import (
    DEFAULT_PROVIDER,
    OVERRIDE_KEY_ENV,
    PRESETS,
    ChannelKind,
    CommandPolicy,
    EditFormat,
    Preset,
    preset,
)
from spark_cli.session.config.pricing import Price, price_of
from spark_cli.session.config.trust import TrustState, trust_state

DEFAULT_CONTEXT_WINDOW = 128_000
DEFAULT_MAX_OUTPUT_TOKENS = 8_192
DEFAULT_IDLE_TIMEOUT = 10.0
DEFAULT_MAX_TOOL_CALLS = 40
_FLOATS = ("idle_timeout", "first_token_timeout", "compact_at", "best_of_check_timeout_s")
MAX_OUTPUT_SHARE = 4
"""Unconfigured, the answer keeps a quarter of the window (at most the default)."""


def default_max_output(window: int) -> int:
    """``min(8192, window / 4)``: room for the answer that never eats the whole window."""
    return max(1, min(DEFAULT_MAX_OUTPUT_TOKENS, window // MAX_OUTPUT_SHARE))


def mask_key(key: str | None) -> str:
    """``sk-…abcd`` for a long key, ``…`` for a short one, ``(not set)`` for none."""
    if not key:
        return "(not set)"
    if len(key) >= 16:
        return f"{key[:3]}…{key[-4:]}"
    return "…"


@record
class ProviderSettings:
    """The provider a session talks to, resolved from every layer."""

    name: str
    kind: ChannelKind
    base_url: str | None
    model: str
    api_key: str | None = field(repr=False, default=None)
    key_env: str | None = None
    """The environment variable the key was (or would be) read from."""
    secrets: Secrets = field(repr=False, compare=False, default=NO_SECRETS)
    """Every key spark can see (the one in use included): masked in all it shows."""

    @property
    def masked_key(self) -> str:
        return mask_key(self.api_key)

    @property
    def shown_base_url(self) -> str | None:
        """The base URL safe to show: a password or token in its userinfo masked."""
        return mask_url(self.base_url) if self.base_url else self.base_url

    def __repr__(self) -> str:
        return (f"ProviderSettings(name={self.name!r}, kind={self.kind!r}, "
                f"base_url={self.shown_base_url!r}, model={self.model!r}, "
                f"api_key={self.masked_key!r}, key_env={self.key_env!r})")


@record
class Settings:
    """Everything a session runs with, resolved from every layer (``sources``: where from)."""

    provider: ProviderSettings
    edit_format: EditFormat
    context_window: int
    max_output_tokens: int
    idle_timeout: float
    test_command: str | None
    allow_syntax_errors: bool
    sources: dict[str, str]
    """key -> ``default`` | ``user file PATH`` | ``project file PATH`` | ``env NAME`` | ``flag``."""
    files: tuple[str, ...] = ()
    """The config files that were read."""
    problems: tuple[str, ...] = ()
    """What stops a turn from running (a missing key or base URL); empty when ready."""
    first_token_timeout: float | None = None
    """Seconds allowed before the first token; None: derived from the prompt's size."""
    token_scale: float = 1.0
    """Server tokens per spark token (1.0, measured, or ``ESTIMATE_SCALE``); never from a file."""
    tools: bool = True
    """Requests declare the read-only tools (``read_file``, ``search``, ``list_files``)."""
    max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS
    """Tool calls spark runs for the model in one turn before it stops the loop."""
    commands: CommandPolicy = "ask"
    """Commands: ``ask`` each time, run in the ``sandbox`` without asking, or ``off``."""
    allowed_commands: tuple[str, ...] = ()
    """Leading words of commands that run without asking (a compound line still asks)."""
    trust: TrustState | None = None
    """The repo's trust (`trust.trust_state`): an untrusted project layer is not read."""
    ignored: tuple[str, ...] = ()
    """A project file's user-only keys that were left out, one warning each."""
    allow_unsandboxed: bool = False
    """``allowed_commands`` and "always" run even with no sandbox (user config only)."""
    command_env: tuple[str, ...] = ()
    """Variables a command gets besides the core ones (``checks.command_env``); user config."""
    sandbox_deny_read: tuple[str, ...] = ()
    """Paths the sandbox hides besides the known credentials (``checks.confine``); user config."""
    compact_at: float = 0.8
    """Compact the conversation before a request passes this share of ``input_budget``."""
    auto_compact: bool = True
    compact_keep_turns: int = 2
    """The latest turns a compaction keeps whole."""
    compact_model: str | None = None
    """The model that writes a compaction's summary (None: the session's own)."""
    price: Price | None = None
    """The model's price (``session.config.pricing``); None: unknown."""
    best_of: int = 1
    """Answers raced per `spark edit` (``--best-of``); 1: a plain answer."""
    best_of_check: str | None = None
    """The command that judges a raced answer in its own tree (else the test command)."""
    best_of_check_timeout_s: float = 120.0
    max_stop_hooks: int = 3
    """Times one turn's Stop hooks may send the model back to work."""
    prices: Mapping[str, Price] = field(default_factory=dict)
    """The configured ``[pricing]`` rows, for a request on another model (a prompt file's, a
    compaction's ``compact_model``)."""

    @property
    def input_budget(self) -> int:
        """Tokens the request may use: the window minus the room kept for the answer."""
        return max(0, self.context_window - self.max_output_tokens)

    def price_for(self, model: str) -> Price | None:
        """A request's model's price: the session model's own, else as ``price_of`` finds it."""
        if model == self.provider.model:
            return self.price
        bundled = self.provider.kind == "mock" and not self.provider.base_url
        return price_of(model, self.prices, bundled=bundled)

    def as_dict(self) -> dict[str, Any]:
        """Every resolved value (the key and any URL userinfo masked), for `spark config`."""
        p = self.provider
        return {
            "provider": p.name, "kind": p.kind, "model": p.model, "base_url": p.shown_base_url,
            "api_key": p.masked_key, "key_env": p.key_env, "edit_format": self.edit_format,
            "context_window": self.context_window, "max_output_tokens": self.max_output_tokens,
            "idle_timeout": self.idle_timeout,
            "first_token_timeout": self.first_token_timeout or "auto (from the prompt's size)",
            "test_command": self.test_command,
            "allow_syntax_errors": self.allow_syntax_errors, "tools": self.tools,
            "max_tool_calls": self.max_tool_calls, "commands": self.commands,
            "allowed_commands": list(self.allowed_commands),
            "allow_unsandboxed": self.allow_unsandboxed,
            "command_env": list(self.command_env),
            "sandbox_deny_read": list(self.sandbox_deny_read), "compact_at": self.compact_at,
            "auto_compact": self.auto_compact, "compact_keep_turns": self.compact_keep_turns,
            "compact_model": self.compact_model,
            "best_of": self.best_of,
            "best_of_check": self.best_of_check,
            "best_of_check_timeout_s": self.best_of_check_timeout_s,
            "max_stop_hooks": self.max_stop_hooks,
            "price": "unknown" if self.price is None else
            {"input": self.price.input, "cached_input": self.price.cached_input,
             "output": self.price.output},
        }


def load_settings(root: Path, flags: Mapping[str, object] | None = None,
                  env: Mapping[str, str] | None = None, *, check: bool = True) -> Settings:
    """Resolve every setting and its source; ``SettingsError`` (a ValueError) on bad input.

    ``check``: a missing key or base URL is an error too (else it is in ``problems``). Keys come
    only from the environment; a layer naming another provider does not set this one's values."""
    env = os.environ if env is None else env
    layers, files = file_layers(root, env)
    layers += [env_layer(env), flag_layer(flags or {})]
    name, source = chosen_provider(layers, DEFAULT_PROVIDER, "default")
    chosen = preset(name)  # a layer's provider was checked as it was read
    resolved, sources = _resolve(chosen, layers)
    sources["provider"] = source
    api_key, key_env = _api_key(env, resolved["api_key_env"])
    sources["api_key"] = f"env {key_env}" if api_key else "not set"
    model, base_url = resolved["model"], resolved["base_url"]
    problems = _problems(chosen, model, base_url, api_key, key_env)
    if check and problems:
        raise SettingsError("; ".join(problems))
    provider = ProviderSettings(name, resolved["kind"], base_url, model or "", api_key, key_env,
                                secrets=_known_secrets(env, layers, api_key))
    window = resolved["context_window"]
    if sources["max_output_tokens"] == "default":
        resolved["max_output_tokens"] = default_max_output(window)
        sources["max_output_tokens"] = "default: min(8192, context_window / 4)"
    configured = {m: p for layer in layers for m, p in layer.pricing.items()}
    bundled = provider.kind == "mock" and not provider.base_url
    price = price_of(provider.model, configured, bundled=bundled)
    priced = [layer.label for layer in layers if provider.model in layer.pricing]
    sources["price"] = (f"{priced[-1]} [pricing]" if priced else "the bundled engine: free"
                        if bundled else "built in (docs/providers.md)" if price else
                        f'unknown: set [pricing."{provider.model}"] in a config file')
    return Settings(provider=provider, sources=sources, files=tuple(files),
                    problems=tuple(problems), trust=trust_state(root, env),
                    ignored=tuple(line for layer in layers for line in layer.ignored),
                    price=price, prices=configured, **_plain(resolved))


def _plain(resolved: dict[str, Any]) -> dict[str, Any]:
    """The resolved values (each checked as its layer was read) as ``Settings`` holds them."""
    return {key: tuple(value) if isinstance(value, list) else float(value)
            if key in _FLOATS and value is not None else value
            for key, value in resolved.items() if key not in PROVIDER_SPECIFIC}


def with_window(settings: Settings, window: int, source: str, *,
                token_scale: float | None = None) -> Settings:
    """``settings`` with the model's ``window``; ``max_output_tokens`` follows unless configured."""
    sources = dict(settings.sources)
    sources["context_window"] = source
    max_output = settings.max_output_tokens
    if sources.get("max_output_tokens", "default").startswith("default"):
        max_output = default_max_output(window)
    return replace(settings, context_window=window, max_output_tokens=max_output,
                   sources=sources,
                   token_scale=settings.token_scale if token_scale is None else token_scale)


def _resolve(chosen: Preset, layers: list[Layer]) -> tuple[dict[str, Any], dict[str, str]]:
    """The preset's values overlaid by each layer in order, and where each came from."""
    name = chosen.name
    resolved: dict[str, Any] = {
        "model": chosen.model, "base_url": chosen.base_url, "kind": chosen.kind,
        "api_key_env": chosen.key_env, "edit_format": chosen.edit_format,
        "context_window": DEFAULT_CONTEXT_WINDOW, "max_output_tokens": DEFAULT_MAX_OUTPUT_TOKENS,
        "idle_timeout": DEFAULT_IDLE_TIMEOUT, "test_command": None, "allow_syntax_errors": False,
        **{f.name: f.default for f in fields(Settings) if f.name in SETTING_KEYS
           and f.default is not MISSING}}
    sources = {key: f"preset {name}" if key in PROVIDER_KEYS else "default" for key in resolved}
    for key, value, source in overlay(layers, name):
        resolved[key], sources[key] = value, source
    return resolved, sources


def _api_key(env: Mapping[str, str], key_env: object) -> tuple[str | None, str | None]:
    """The key and the variable it comes from (or would): SPARK_API_KEY overrides."""
    if env.get(OVERRIDE_KEY_ENV):
        return env[OVERRIDE_KEY_ENV], OVERRIDE_KEY_ENV
    name = key_env if isinstance(key_env, str) else None
    return ((env.get(name) or None) if name else None), name


def _problems(chosen: Preset, model: object, base_url: object, api_key: str | None,
              key_env: str | None) -> list[str]:
    """What stops a turn: a missing model, base URL or key."""
    name = chosen.name
    problems: list[str] = []
    if not model:
        problems.append(f"provider {name!r} needs a model: --model, SPARK_MODEL or "
                        f"'model' in .spark/config.toml")
    if chosen.needs_base_url and not base_url:
        problems.append(f"provider {name!r} needs a base_url (e.g. http://localhost:8000/v1 "
                        "for vLLM): --base-url, SPARK_BASE_URL or 'base_url' in a config file")
    if chosen.needs_key and not api_key:
        problems.append(f"provider {name!r} needs an API key: set {key_env} (or SPARK_API_KEY)")
    if api_key:
        bad = _header_unsafe(api_key)
        if bad is not None:
            hint = " (copied with a stray newline?)" if bad.startswith("a line break") else ""
            problems.append(f"the API key in {key_env} has {bad}, which an HTTP header cannot "
                            f"carry{hint}: set it again")
    return problems


def _header_unsafe(key: str) -> str | None:
    """What in ``key`` an ``Authorization`` header cannot carry, named without the key; or None."""
    for index, char in enumerate(key):
        code = ord(char)
        if code < 0x20 or code == 0x7F or code > 0x7E:
            what = "a line break" if char in "\r\n" else (
                f"a control character (U+{code:04X})" if code < 0x20 or code == 0x7F
                else f"a non-ASCII character (U+{code:04X})")
            where = "at its end" if index == len(key) - 1 else f"at position {index + 1}"
            return f"{what} {where}"
    return None


def _known_secrets(env: Mapping[str, str], layers: list[Layer],
                   api_key: str | None) -> Secrets:
    """Every key spark can see (presets' variables, any ``api_key_env``, the key in use)."""
    names = {OVERRIDE_KEY_ENV, *(p.key_env for p in PRESETS.values() if p.key_env)}
    for layer in layers:
        for table in (layer.values, *layer.providers.values()):
            named = table.get("api_key_env")
            if isinstance(named, str):
                names.add(named)
    found = {env[name] for name in names if env.get(name)}
    if api_key:
        found.add(api_key)
    return Secrets(sorted(found))


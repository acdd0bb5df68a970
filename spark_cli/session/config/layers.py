"""Where settings come from, one layer each: the config files, the environment, the flags.

Every value is checked as it is read (``SettingsError`` naming file and key); keys are never
read from files. ``chosen_provider`` and ``overlay`` are the one way layers stack.
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import field
from pathlib import Path

from spark_cli.record import record
from spark_cli.session.config.presets import COMMAND_POLICIES, EDIT_FORMATS, KINDS, PRESETS
from spark_cli.session.config.pricing import Price, PricingError, check_pricing
from spark_cli.session.config.trust import read_once, trust_state

CONFIG_NAME = "config.toml"
PROJECT_DIR = ".spark"

# key -> (python types accepted, words for the error)
_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "provider": ((str,), "a string"),
    "model": ((str,), "a string"),
    "base_url": ((str,), "a string (an http(s) URL)"),
    "kind": ((str,), "a string"),
    "api_key_env": ((str,), "a string (an environment variable name)"),
    "edit_format": ((str,), "a string"),
    "context_window": ((int,), "an integer"),
    "max_output_tokens": ((int,), "an integer"),
    "idle_timeout": ((int, float), "a number (seconds)"),
    "first_token_timeout": ((int, float), "a number (seconds)"),
    "test_command": ((str,), "a string"),
    "allow_syntax_errors": ((bool,), "a boolean (true/false)"),
    "tools": ((bool,), "a boolean (true/false)"),
    "max_tool_calls": ((int,), "an integer"),
    "commands": ((str,), "a string"),
    "allowed_commands": ((list,), "a list of strings (leading words, e.g. \"make test\")"),
    "allow_unsandboxed": ((bool,), "a boolean (true/false)"),
    "command_env": ((list,), "a list of environment variable names (e.g. \"GOPATH\")"),
    "sandbox_deny_read": ((list,), "a list of absolute or ~/ paths (e.g. \"~/.config/op\")"),
    "compact_at": ((int, float), "a number between 0 and 1 (a share of the window)"),
    "auto_compact": ((bool,), "a boolean (true/false)"),
    "compact_keep_turns": ((int,), "an integer"),
    "compact_model": ((str,), "a string (a model name on the same provider)"),
    "best_of": ((int,), "an integer from 1 to 8"),
    "best_of_check": ((str,), "a string (a shell command, e.g. \"pytest -q\")"),
    "best_of_check_timeout_s": ((int, float), "a number (seconds)"),
    "max_stop_hooks": ((int,), "an integer (times a turn Stop hooks may send it back)"),
}
MAX_BEST_OF = 8
PROVIDER_KEYS = ("model", "base_url", "kind", "api_key_env", "edit_format")
PROVIDER_SPECIFIC = ("model", "base_url", "kind", "api_key_env")
SETTING_KEYS = frozenset(_TYPES)
_CHOICES: dict[str, tuple[str, ...]] = {"edit_format": EDIT_FORMATS, "kind": KINDS,
                                        "commands": COMMAND_POLICIES}
_POSITIVE = ("context_window", "max_output_tokens", "idle_timeout", "first_token_timeout",
             "max_tool_calls", "compact_at", "best_of", "best_of_check_timeout_s")
_SHAPES = {"command_env": re.compile(r"[A-Za-z_][A-Za-z0-9_]*").fullmatch,
           "sandbox_deny_read": re.compile(r"(/|~/|~$).*").match}
_ENV_KEYS = {"provider": "SPARK_PROVIDER", "model": "SPARK_MODEL", "base_url": "SPARK_BASE_URL"}
USER_ONLY = frozenset({"base_url", "kind", "api_key_env", "allow_unsandboxed", "command_env",
                       "sandbox_deny_read"})
"""Keys a project file never sets, trusted or not: ignored there with a warning."""
USER_ONLY_VALUES = {"commands": ("full-access",)}
"""Values a project file never sets."""


class SettingsError(ValueError):
    """A configuration problem: names the file (or flag/env), the key and what was expected."""


def user_config_path(env: Mapping[str, str]) -> Path:
    """``$SPARK_CONFIG_DIR/config.toml``, else XDG on Linux, else platformdirs."""
    override = env.get("SPARK_CONFIG_DIR")
    if override:
        return Path(override) / CONFIG_NAME
    if sys.platform.startswith("linux") and not hasattr(sys, "getandroidapilevel"):
        xdg = env.get("XDG_CONFIG_HOME", "")
        base = xdg if xdg.startswith("/") else os.path.expanduser("~/.config")
        return Path(base) / "spark" / CONFIG_NAME
    import platformdirs  # deferred: launch -> request

    return Path(platformdirs.user_config_dir("spark", appauthor=False)) / CONFIG_NAME


def project_config_path(root: Path) -> Path:
    return Path(root) / PROJECT_DIR / CONFIG_NAME


def check_value(where: str, key: str, value: object) -> object:
    types, words = _TYPES[key]
    ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
    if not ok:
        raise SettingsError(f"{where}: '{key}' must be {words}, not "
                            f"{type(value).__name__} ({value!r})")
    choices = _CHOICES.get(key)
    if choices is not None and value not in choices:
        raise SettingsError(f"{where}: '{key}' must be one of {', '.join(choices)}, "
                            f"not {value!r}")
    if key in _POSITIVE and isinstance(value, int | float) and value <= 0:
        raise SettingsError(f"{where}: '{key}' must be greater than 0, not {value!r}")
    _check_range(where, key, value, words)
    shape = _SHAPES.get(key, str.strip)
    if isinstance(value, list) and not all(isinstance(v, str) and shape(v) for v in value):
        raise SettingsError(f"{where}: '{key}' must be {words}, not {value!r}")
    if key in ("model", "base_url", "provider", "api_key_env") and not str(value).strip():
        raise SettingsError(f"{where}: '{key}' is empty")
    if key == "provider" and value not in PRESETS:
        raise SettingsError(f"{where}: unknown provider {value!r}; use one of {', '.join(PRESETS)}")
    return value


def _check_range(where: str, key: str, value: object, words: str) -> None:
    """A share above 1, a count below 0."""
    if (key == "compact_at" and isinstance(value, int | float) and value > 1) or (
            key == "best_of" and isinstance(value, int) and value > MAX_BEST_OF):
        raise SettingsError(f"{where}: '{key}' must be {words}, not {value!r}")
    if key == "compact_keep_turns" and isinstance(value, int) and value < 0:
        raise SettingsError(f"{where}: '{key}' must be 0 or more, not {value!r}")


@record
class Layer:
    """One source of settings (defaults, a config file, the environment, flags)."""

    label: str
    values: dict[str, object]
    providers: dict[str, dict[str, object]] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)
    """Where a value came from when not the layer's label (a variable, a flag)."""
    pricing: dict[str, Price] = field(default_factory=dict)
    """The file's ``[pricing."MODEL"]`` rows."""
    ignored: list[str] = field(default_factory=list)
    """A project file's user-only keys, left out: one warning each."""

    def source(self, key: str) -> str:
        return self.sources.get(key, self.label)


def secret_error(where: str, key: str) -> SettingsError:
    return SettingsError(f"{where}: '{key}' is not read from config files: keep keys in the "
                         "environment (OPENAI_API_KEY, CEREBRAS_API_KEY, SPARK_API_KEY) and "
                         "name another variable with 'api_key_env' if needed")


_parsed: dict[Path, tuple[bytes, dict[str, object]]] = {}


def read_toml(path: Path) -> dict[str, object]:
    """A config file's table, parsed once per change (``SettingsError`` when unreadable)."""
    try:
        raw = read_once(path)
    except OSError as exc:
        raise SettingsError(f"{path}: cannot read ({exc.strerror or exc})") from None
    known = _parsed.get(path)
    if known is not None and known[0] is raw:
        return known[1]
    table: dict[str, object] = {}
    if raw.strip(b" \t\r\n"):  # an empty file is an empty table: no parser needed
        import tomllib  # deferred: launch -> request

        try:
            table = tomllib.loads(raw.decode())
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise SettingsError(f"{path}: not valid TOML ({exc})") from None
    _parsed[path] = (raw, table)
    return table


def user_only(layer: Layer, path: Path, key: str, value: object, user: Path | None) -> bool:
    """A project file's ``key`` the user alone sets: noted in ``layer.ignored``."""
    name = key.rsplit(".", 1)[-1]
    if user is None or not (name in USER_ONLY or value in USER_ONLY_VALUES.get(name, ())):
        return False
    what = f"'{key}'" if name in USER_ONLY else f"'{key} = {value!r}'"
    layer.ignored.append(f"{path}: {what} ignored: a project file cannot set it; put it in "
                         f"your user config ({user}), the environment or a flag")
    return True


def parse_file(path: Path, label: str, user: Path | None = None) -> Layer:
    """``path``'s layer (``user`` given for a project file: its user-only keys are left out)."""
    layer = Layer(f"{label} {path}", {})
    for key, value in read_toml(path).items():
        if key == "providers":
            if not isinstance(value, dict):
                raise SettingsError(f"{path}: 'providers' must be a table of [providers.NAME]")
            for name, table in value.items():
                if name not in PRESETS:
                    raise SettingsError(f"{path}: [providers.{name}]: unknown provider "
                                        f"{name!r}; use one of {', '.join(PRESETS)}")
                if not isinstance(table, dict):
                    raise SettingsError(f"{path}: 'providers.{name}' must be a table")
                checked: dict[str, object] = {}
                for sub, sub_value in table.items():
                    where = f"{path}: providers.{name}"
                    if sub in ("api_key", "key"):
                        raise secret_error(str(path), f"providers.{name}.{sub}")
                    if user_only(layer, path, f"providers.{name}.{sub}", sub_value, user):
                        continue
                    if sub not in PROVIDER_KEYS:
                        raise SettingsError(f"{where}: unknown key '{sub}' (known: "
                                            f"{', '.join(PROVIDER_KEYS)})")
                    checked[sub] = check_value(f"{path}: [providers.{name}]", sub, sub_value)
                layer.providers[name] = checked
            continue
        if key in ("api_key", "key"):
            raise secret_error(str(path), key)
        if key == "pricing":
            try:
                layer.pricing.update(check_pricing(str(path), value))
            except PricingError as exc:
                raise SettingsError(str(exc)) from None
            continue
        if key in ("deep", "mcp_servers", "hooks"):
            continue  # tables read by their own owners (session.deep, MCP servers, hooks)
        if user_only(layer, path, key, value, user):
            continue
        if key not in _TYPES:
            raise SettingsError(f"{path}: unknown key '{key}' (known: "
                                f"{', '.join([*_TYPES, 'providers'])})")
        layer.values[key] = check_value(str(path), key, value)
    return layer


def env_layer(env: Mapping[str, str], names: Mapping[str, str] = _ENV_KEYS) -> Layer:
    """The settings the variables ``names`` (key -> variable) set."""
    return Layer("env", {key: check_value(f"environment variable {name}", key, env[name])
                         for key, name in names.items() if env.get(name)},
                 sources={key: f"env {name}" for key, name in names.items()})


def flag_layer(flags: Mapping[str, object], keys: Mapping[str, str] | None = None) -> Layer:
    """The settings ``flags`` set (``keys``: flag -> setting, when they differ)."""
    values: dict[str, object] = {}
    sources: dict[str, str] = {}
    for flag, value in flags.items():
        key = flag if keys is None else keys.get(flag)
        if value is None or key is None:
            continue
        if key not in _TYPES:
            raise SettingsError(f"unknown setting '{key}' (known: {', '.join(_TYPES)})")
        option = f"--{flag.replace('_', '-')}"
        values[key] = check_value(option, key, value)
        sources[key] = f"flag {option}"
    return Layer("flag", values, sources=sources)


def chosen_provider(layers: Sequence[Layer], name: str, source: str) -> tuple[str, str]:
    """The provider the last layer naming one names, and where from (else ``name``)."""
    for layer in layers:
        if "provider" in layer.values:
            name, source = str(layer.values["provider"]), layer.source("provider")
    return name, source


def overlay(layers: Sequence[Layer], name: str) -> Iterator[tuple[str, object, str]]:
    """(key, value, source) each layer sets for provider ``name``, lowest first."""
    for layer in layers:
        other = layer.values.get("provider", name) != name
        for key, value in layer.values.items():
            if key != "provider" and not (other and key in PROVIDER_SPECIFIC):
                yield key, value, layer.source(key)
        for key, value in layer.providers.get(name, {}).items():
            yield key, value, f"{layer.label} [providers.{name}]"


def config_files(root: Path, env: Mapping[str, str]) -> list[tuple[str, Path]]:
    """The config files to read, lowest first, labelled; the project's only while trusted."""
    found = [(label, path) for label, path in (("user file", user_config_path(env)),
                                               ("project file", project_config_path(root)))
             if path.is_file()]
    if found and found[-1][0] == "project file" and not trust_state(root, env).trusted:
        found.pop()
    return found


def file_layers(root: Path, env: Mapping[str, str]) -> tuple[list[Layer], list[str]]:
    """The files' layers (a project's ``ignored`` names its MCP servers' user-only keys too)."""
    found = config_files(root, env)
    layers = []
    for label, path in found:
        project = label == "project file"
        layers.append(parse_file(path, label, user_config_path(env) if project else None))
        if project and "mcp_servers" in read_toml(path):
            from spark_cli.mcp.mcp_config import McpConfigError, read_servers  # deferred: rare

            with contextlib.suppress(McpConfigError):  # reported where servers are read
                servers = read_servers([(label, path)], read_toml)
                layers[-1].ignored.extend(line for s in servers for line in s.ignored)
    return layers, [str(p) for _, p in found]

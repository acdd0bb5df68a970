"""The deep track's settings: the ``[deep]`` table (a provider's keys plus limits) beside the
fast provider, with the same precedence: defaults < user file < project file <
``SPARK_DEEP_*`` variables < ``deep_*`` flags."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path

from spark_cli.session.config.layers import (
    Layer,
    SettingsError,
    check_value,
    chosen_provider,
    config_files,
    env_layer,
    flag_layer,
    overlay,
    read_toml,
    secret_error,
    user_config_path,
    user_only,
)
from spark_cli.session.config.settings import Settings, load_settings

TABLE = "deep"
DEEP_MODELS = {"mock": "spark-deep", "openai": "gpt-5.3-codex"}  # when [deep] names none
_KEYS = ("provider", "model", "base_url", "api_key_env", "kind", "edit_format",
         "context_window", "max_output_tokens")
_ENV = {"provider": "SPARK_DEEP_PROVIDER", "model": "SPARK_DEEP_MODEL",
        "base_url": "SPARK_DEEP_BASE_URL"}
_FLAGS = {"deep_provider": "provider", "deep_model": "model", "deep_base_url": "base_url",
          "deep_edit_format": "edit_format"}
_SHARED_FLAGS = ("max_output_tokens", "allow_syntax_errors", "idle_timeout", "context_window",
                 "test_command", "tools", "max_tool_calls")  # flags the deep track shares


def _read_table(path: Path) -> dict[str, object]:
    """The ``[deep]`` table of one config file, each value checked as a fast setting is."""
    table = read_toml(path).get(TABLE)
    if table is None:
        return {}
    where = f"{path}: [{TABLE}]"
    if not isinstance(table, dict):
        raise SettingsError(f"{path}: '{TABLE}' must be a table ([{TABLE}])")
    checked: dict[str, object] = {}
    for key, value in table.items():
        if key in ("api_key", "key"):
            raise secret_error(where, key)
        name = "provider" if key == "preset" else key
        if name not in _KEYS:
            raise SettingsError(f"{where}: unknown key '{key}' (known: preset, "
                                f"{', '.join(_KEYS)})")
        checked[name] = check_value(where, name, value)
    return checked


def _layers(root: Path, flags: Mapping[str, object], env: Mapping[str, str]) -> list[Layer]:
    layers: list[Layer] = []
    for label, path in config_files(root, env):
        layer = Layer(f"{label} {path} [{TABLE}]", {})
        layers.append(layer)
        user = user_config_path(env) if label == "project file" else None
        layer.values.update((k, v) for k, v in _read_table(path).items()
                            if not user_only(layer, path, f"{TABLE}.{k}", v, user))
    return [*layers, env_layer(env, _ENV), flag_layer(flags, _FLAGS)]


def load_deep_settings(root: Path, flags: Mapping[str, object], env: Mapping[str, str], *,
                       check: bool = False) -> Settings:
    """The deep track's resolved settings; ``SettingsError`` on bad input (with ``check``,
    also a missing key; else it goes to ``Settings.problems``). Default: the bundled engine."""
    layers = _layers(Path(root), flags, env)
    name, source = chosen_provider(layers, "mock", "default (deep)")
    chosen: dict[str, object] = {"provider": name}
    sources = {"provider": source}
    for key, value, where in overlay(layers, name):
        chosen[key], sources[key] = value, where
    if "model" not in chosen and name in DEEP_MODELS:
        chosen["model"], sources["model"] = DEEP_MODELS[name], "default (deep)"
    passed = {key: flags[key] for key in _SHARED_FLAGS if flags.get(key) is not None}
    fast_only = ("SPARK_PROVIDER", "SPARK_MODEL", "SPARK_BASE_URL")  # the fast track's
    settings = load_settings(root, {**passed, **chosen},
                             {k: v for k, v in env.items() if k not in fast_only}, check=False)
    merged = dict(settings.sources)
    merged.update(sources)
    problems = tuple(f"deep {p}" for p in settings.problems)
    if check and problems:
        raise SettingsError("; ".join(problems))
    ignored = (*settings.ignored, *(line for layer in layers for line in layer.ignored))
    return dataclasses.replace(settings, sources=merged, problems=problems, ignored=ignored)


def bundled_notice(deep: Settings, fast: Settings) -> str | None:
    """One line when the deep track falls back on the bundled engine and the fast one does not."""
    if deep.provider.name != "mock" or not deep.sources.get("provider", "").startswith(
            "default"):
        return None
    if fast.provider.name == "mock":
        return None
    return (f"deep track: no [deep] provider is configured, so deep tasks run on the bundled "
            f"engine (model {deep.provider.model}), not on {fast.provider.name}; set [deep] "
            "provider (and model) in .spark/config.toml to use a real model")


def deep_flags(flags: Mapping[str, object]) -> dict[str, object]:
    """A one-shot's provider flags as the deep track's (``spark edit --deep``)."""
    renamed = {key: flag for flag, key in _FLAGS.items()}
    return {renamed.get(key, key): value for key, value in flags.items() if key != "deep"}

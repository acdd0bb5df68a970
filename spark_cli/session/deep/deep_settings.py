"""The deep track's settings: the ``[deep]`` table beside the fast provider.

``[deep]`` lives in the same files as every other setting (the user's
``config.toml``, then the project's ``.spark/config.toml``) and takes the keys
of a provider: ``provider`` (or its alias ``preset``), ``model``, ``base_url``,
``api_key_env``, ``kind``, ``edit_format``, plus ``context_window`` and
``max_output_tokens`` (deep models often have other limits). Precedence, as for
the fast settings: defaults < user file < project file < environment
(``SPARK_DEEP_PROVIDER``, ``SPARK_DEEP_MODEL``, ``SPARK_DEEP_BASE_URL``) < flags
(``deep_provider``, ``deep_model``, ``deep_base_url``, ``deep_edit_format``).
A ``model`` / ``base_url`` / ``kind`` / ``api_key_env`` in a layer that names a
different provider than the one finally chosen is not carried over.
"""

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
DEEP_MODELS = {"mock": "spark-deep", "openai": "gpt-5.3-codex"}
"""The deep model a preset gets when ``[deep]`` names none."""
_KEYS = ("provider", "model", "base_url", "api_key_env", "kind", "edit_format",
         "context_window", "max_output_tokens")
_ENV = {"provider": "SPARK_DEEP_PROVIDER", "model": "SPARK_DEEP_MODEL",
        "base_url": "SPARK_DEEP_BASE_URL"}
_FLAGS = {"deep_provider": "provider", "deep_model": "model", "deep_base_url": "base_url",
          "deep_edit_format": "edit_format"}
_SHARED_FLAGS = ("max_output_tokens", "allow_syntax_errors", "idle_timeout", "context_window",
                 "test_command", "tools", "max_tool_calls")
"""Flags that are not the fast provider's and so apply to the deep track as well."""


def _read_table(path: Path) -> dict[str, object]:
    """The checked ``[deep]`` table of one config file ({} when it has none); every value
    checked by the fast settings' own rules (``session.config.layers``)."""
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
    """The ``[deep]`` tables, variables and flags, lowest first."""
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
    """The deep track's resolved settings; ``SettingsError`` naming file and key on bad input.

    ``flags`` may be the front end's whole flag set: the fast provider's
    ``provider`` / ``model`` / ``base_url`` / ``edit_format`` are ignored, the
    ``deep_*`` ones and the shared ones (``max_output_tokens``, ...) are used.
    With ``check`` a missing key or base URL raises (``spark edit --deep``);
    without it (the TUI) it is left in ``Settings.problems`` and a deep task
    fails with that line while the fast track goes on.

    Default: the bundled engine with the model ``spark-deep`` (other presets:
    :data:`DEEP_MODELS`, else the preset's own model). The result is an ordinary
    ``Settings`` made by ``load_settings`` (so keys and every other setting, e.g.
    ``idle_timeout``, follow the fast track's rules), with ``sources`` naming the
    ``[deep]`` table, variable or flag each provider value came from.
    """
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
    """One line for when the deep track falls back on the bundled engine (no ``[deep]``
    provider anywhere) while the fast track talks to a real server; None otherwise."""
    if deep.provider.name != "mock" or not deep.sources.get("provider", "").startswith(
            "default"):
        return None
    if fast.provider.name == "mock":
        return None
    return (f"deep track: no [deep] provider is configured, so deep tasks run on the bundled "
            f"engine (model {deep.provider.model}), not on {fast.provider.name}; set [deep] "
            "provider (and model) in .spark/config.toml to use a real model")


def deep_flags(flags: Mapping[str, object]) -> dict[str, object]:
    """A one-shot's flags (``--provider``, ``--model``, ``--base-url``, ``--format``) as the
    deep track's (``spark edit --deep``): they pick the deep provider."""
    renamed = {"provider": "deep_provider", "model": "deep_model", "base_url": "deep_base_url",
               "edit_format": "deep_edit_format"}
    return {renamed.get(key, key): value for key, value in flags.items() if key != "deep"}

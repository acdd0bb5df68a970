"""The settings of one `spark edit` run (any problem a usage error), and its stderr lines."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any


def edit_flags(*, no_tools: bool = False, **given: object) -> dict[str, object]:
    """The flags as ``load_settings``'s flags layer (None or False: not given)."""
    flags = {key: value for key, value in given.items() if value is not None and value is not False}
    if no_tools:
        flags["tools"] = False
    return flags


def say(line: str) -> None:
    """One line on stderr, flushed (what ``typer.echo(..., err=True)`` did, without typer)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _say_if_bundled(root: Path, deep: Any) -> None:
    """``--deep`` falling back on the bundled engine while the fast one is real: say so once."""
    # deferred: spark --help
    from spark_cli.session.config.settings import load_settings
    from spark_cli.session.deep.deep_settings import bundled_notice

    if deep.provider.name != "mock":
        return
    try:
        fast = load_settings(root, {}, os.environ, check=False)
    except (ValueError, KeyError, TypeError, OSError):
        return
    notice = bundled_notice(deep, fast)
    if notice is not None:
        say(f"spark edit: {notice}")


def ask_server(base_url: str, model: str, api_key: str | None, *, tokenizer: bool) -> Any:
    """The transport's probe (``session.window.facts.Ask``)."""
    from spark_cli.transport.window.probe import discover  # deferred: spark --help

    return discover(base_url, model, api_key, tokenizer=tokenizer)


def resolved(root: Path, flags: dict[str, object], *, check: bool = True,
             fresh: bool = False) -> Any:
    """The settings with the model's window (``fresh``: asked again); ``SettingsError`` if bad."""
    # deferred: spark --help
    from spark_cli.session.config.settings import load_settings
    from spark_cli.session.window.facts import resolve

    return resolve(load_settings(root, flags, os.environ, check=check), ask_server, fresh=fresh)


def warn_project(settings: Any) -> None:
    """Say on stderr what of the config was ignored (untrusted, user-only keys, full access)."""
    if settings.commands == "full-access" and settings.tools:
        from spark_cli.session.config.presets import FULL_ACCESS  # deferred: spark --help

        source = settings.sources.get("commands", "")
        what = "--commands full-access" if source.startswith("flag") else \
            f'commands = "full-access" ({source})'
        say(f"spark: {what}: {FULL_ACCESS}")
    trust = settings.trust
    if trust is not None and trust.asks:
        say(f"spark: {trust.line()}")
    for line in settings.ignored:
        say(f"spark: {line}")


def load(root: Path, flags: dict[str, object], *, one_shot: bool = False,
         warn: bool = False) -> Any:
    """:func:`resolved`, a usage error if bad (``one_shot``: commands off unless set)."""
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import UsageError
    from spark_cli.session.window.facts import resolve

    try:
        if flags.get("deep"):
            # deferred: spark --help
            from spark_cli.session.deep.deep_settings import deep_flags, load_deep_settings

            deep = load_deep_settings(root, deep_flags(flags), os.environ, check=True)
            _say_if_bundled(root, deep)
            settings = resolve(deep, ask_server)
        else:
            settings = resolved(root, flags)
            if one_shot and settings.sources.get("commands") == "default":  # none unless told
                settings = replace(settings, commands="off")
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None
    if warn:
        warn_project(settings)
    return settings

"""The settings of one `spark edit` run (its flags resolved, any problem a usage error)
and its one-line messages on stderr.

Shared by both front ends of the command (files: ``edit_cmd``, the pipe filter:
``pipe_mode``), so neither imports the other for it. `spark --help` imports it (through
``edit_cmd``), so the settings are imported when a run loads them.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any


def edit_flags(*, no_tools: bool = False, **given: object) -> dict[str, object]:
    """The flags given as the ``flags`` layer of ``load_settings`` (every command's: None or
    False is a flag not given; ``no_tools`` is ``tools = false``)."""
    flags = {key: value for key, value in given.items() if value is not None and value is not False}
    if no_tools:
        flags["tools"] = False
    return flags


def say(line: str) -> None:
    """One line on stderr, flushed (what ``typer.echo(..., err=True)`` did, without typer)."""
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _say_if_bundled(root: Path, deep: Any) -> None:
    """``--deep`` with no deep provider configured while the fast one is a real server: say
    once that the bundled engine answers."""
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
    """The transport's probe as ``session.window.facts.Ask`` answers."""
    # deferred: spark --help
    from spark_cli.session.window.facts import ServerFacts
    from spark_cli.transport.window.probe import discover

    found = discover(base_url, model, api_key, tokenizer=tokenizer)
    return None if found is None else ServerFacts(found.window, found.where, found.tokenizer,
                                                  served=found.served, loaded=found.loaded)


def resolved(root: Path, flags: dict[str, object], *, check: bool = True,
             fresh: bool = False) -> Any:
    """The settings ``flags`` and the config files give, with the model's window
    (``session.window.facts``: configured, known, cached or asked of the server, ``fresh``:
    asked again); a ``SettingsError`` (a ValueError) for a bad config. Every command's way in."""
    # deferred: spark --help
    from spark_cli.session.config.settings import load_settings
    from spark_cli.session.window.facts import resolve

    return resolve(load_settings(root, flags, os.environ, check=check), ask_server, fresh=fresh)


def warn_project(settings: Any) -> None:
    """Say on stderr that an untrusted project layer was ignored (one line naming the files
    and `spark trust`), and each user-only key a trusted one was read without."""
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
    """:func:`resolved`, any configuration problem a usage error. ``deep`` in
    the flags (``--deep``): the deep track's settings (``[deep]``; --provider/--model pick
    the deep one). ``one_shot`` (`spark edit`): commands are off unless a flag or a config
    file says otherwise (the TUI's default is ``ask``). ``warn``: `warn_project`."""
    settings = _load(root, flags, one_shot)
    if warn:
        warn_project(settings)
    return settings


def _load(root: Path, flags: dict[str, object], one_shot: bool) -> Any:
    # deferred: spark --help
    from spark_cli.cli.edit.edit_run import UsageError
    from spark_cli.session.window.facts import resolve

    try:
        if flags.get("deep"):
            # deferred: spark --help
            from spark_cli.session.deep.deep_settings import deep_flags, load_deep_settings

            deep = load_deep_settings(root, deep_flags(flags), os.environ, check=True)
            _say_if_bundled(root, deep)
            return resolve(deep, ask_server)
        settings = resolved(root, flags)
        if one_shot and settings.sources.get("commands") == "default":  # none unless told
            settings = replace(settings, commands="off")
        return settings
    except (ValueError, KeyError, TypeError, OSError) as exc:
        raise UsageError(str(exc)) from None

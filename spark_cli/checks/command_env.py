"""A command's environment: the core variables a shell and a toolchain need, plus the names
the user lists in ``command_env``; keys, tokens, ``SSH_AUTH_SOCK`` and the like stay out."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

CORE = frozenset({"PATH", "HOME", "USER", "LOGNAME", "SHELL", "LANG", "TERM", "TZ", "TMPDIR",
                  "VIRTUAL_ENV", "CONDA_PREFIX", "CI"})
CORE_PREFIXES = ("LC_", "PYENV_")


def command_environ(environ: Mapping[str, str], keep: Iterable[str] = ()) -> dict[str, str]:
    """The variables of ``environ`` a command gets: `CORE`, ``LC_*``, ``PYENV_*``, ``keep``."""
    kept = CORE | set(keep)
    return {name: value for name, value in environ.items()
            if name in kept or name.startswith(CORE_PREFIXES)}

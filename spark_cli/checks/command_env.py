"""A command's environment: a short list of variables passed, everything else left out.

`command_environ` keeps the core variables a shell and a toolchain need (``PATH``, ``HOME``,
the locale, a venv or conda prefix, pyenv's, ``CI``) and the names the user lists in
``command_env`` (user config); an API key, a token, ``SSH_AUTH_SOCK`` or ``DOCKER_HOST`` is
not passed unless the user names it there. The output mask (`protocol.secrets.Masker`)
still covers what slips through.
"""

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

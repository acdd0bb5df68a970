"""Which command lines may run without asking: ``allowed_commands`` matched by leading words.

A line is *compound* when it holds anything that could run a second command or send output
somewhere: ``;``, ``&`` (so ``&&`` and a background job), ``|`` (so ``||``), ``>``, ``<``,
a backtick, ``$(`` or a newline. The check is on the raw text, quotes or not: a ``;``
inside quotes makes the line ask, which is the safe side. An entry allows a line when the
line's first words (``shlex`` split) are the entry's words: ``pytest`` allows
``pytest -q tests``, ``make test`` does not allow ``make install``. A compound line, an
unparsable one (an open quote) or an empty one is never allowed.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

_COMPOUND = (";", "&", "|", ">", "<", "`", "$(", "\n", "\r")


def is_compound(command: str) -> bool:
    """Whether ``command`` could run more than one command or redirect (see the module doc)."""
    return any(mark in command for mark in _COMPOUND)


def _words(line: str) -> list[str] | None:
    try:
        return shlex.split(line)
    except ValueError:
        return None


def allowed_by(command: str, allowed_commands: Iterable[str]) -> bool:
    """Whether an entry of ``allowed_commands`` lets ``command`` run without asking."""
    words = _words(command)
    if not words or is_compound(command):
        return False
    for entry in allowed_commands:
        wanted = _words(entry)
        if wanted and words[:len(wanted)] == wanted:
            return True
    return False

"""Every secret spark can see, masked in any text before it is shown or written.

A provider's error may quote keys (``Incorrect API key provided: sk-…``), and
not only the one spark sent: a 401 can echo any header or variable. So the
settings gather every key spark can read (each preset's variable, each
``api_key_env`` a config names, ``SPARK_API_KEY``, the key in use) into one
:class:`Secrets`, and text that came from outside passes through
:meth:`Secrets.mask` before it becomes an error message or an event.
"""

from __future__ import annotations

from collections.abc import Iterable

MASK = "***"
MIN_LENGTH = 4
TAIL = 8
"""A secret of at least ``2 * TAIL`` characters also has its last ``TAIL`` masked."""


class Secrets:
    """An immutable set of secret strings and the masking of text with them.

    A secret is replaced by ``***`` wherever it appears, longest first (so a key
    that contains another is masked whole); a long secret's last 8 characters are
    masked too, since providers often quote only the tail (``…cdef1234``).
    Values shorter than :data:`MIN_LENGTH` are not treated as secrets (masking
    ``abc`` everywhere would garble messages and protect nothing).
    """

    __slots__ = ("_needles",)

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        needles: set[str] = set()
        for secret in values:
            if not secret or len(secret) < MIN_LENGTH:
                continue
            needles.add(secret)
            if len(secret) >= 2 * TAIL:
                needles.add(secret[-TAIL:])
        # longest first: a whole key is masked before its tail (or a shorter key inside it)
        self._needles: tuple[str, ...] = tuple(sorted(needles, key=lambda s: (-len(s), s)))

    def __bool__(self) -> bool:
        return bool(self._needles)

    def __repr__(self) -> str:
        return f"Secrets({len(self._needles)} masked strings)"

    def __or__(self, other: Secrets) -> Secrets:
        return Secrets((*self._needles, *other._needles))

    def mask(self, text: str) -> str:
        """``text`` with every secret (and every long secret's tail) replaced by ``***``."""
        for needle in self._needles:
            if needle in text:
                text = text.replace(needle, MASK)
        return text


NO_SECRETS = Secrets()

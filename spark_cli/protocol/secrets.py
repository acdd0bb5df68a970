"""Every secret spark can see, masked before it is shown, written or handed to a command:
`Secrets` (every key spark can read), `mask_url` / `mask_urls_in` (a URL's userinfo),
`scrubbed_env` and `Masker` (a command's environment and its streamed output)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from urllib.parse import urlsplit, urlunsplit

MASK = "***"
MIN_LENGTH = 4
TAIL = 8
"""A secret of at least ``2 * TAIL`` characters also has its last ``TAIL`` masked."""
OUTPUT_MASK = "[secret]"
OUTPUT_MIN = 8
"""A command's output masks values this long or longer (shorter ones hide ordinary words)."""
_SECRET_NAMES = ("_API_KEY", "_TOKEN")


class Secrets:
    """An immutable set of secrets, each masked as ``***`` (longest first, and a long one's tail);
    values shorter than :data:`MIN_LENGTH` are no secrets."""

    __slots__ = ("_needles", "values")

    def __init__(self, values: Iterable[str | None] = ()) -> None:
        self.values = tuple(value for value in values if value)
        """The secrets as given (what a command's environment and output leave out)."""
        needles: set[str] = set()
        for secret in self.values:
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

    def __iter__(self) -> Iterator[str]:
        return iter(self.values)

    def __or__(self, other: Secrets) -> Secrets:
        return Secrets((*self._needles, *other._needles))

    def including(self, value: str | None) -> Secrets:
        """These and ``value``: this very object when it holds ``value`` already."""
        return self if not value or value in self.values else Secrets((value, *self.values))

    def mask(self, text: str) -> str:
        """``text`` with every secret (and every long secret's tail) replaced by ``***``."""
        for needle in self._needles:
            if needle in text:
                text = text.replace(needle, MASK)
        return text


NO_SECRETS = Secrets()


def mask_url(url: str) -> str:
    """``url`` with its whole userinfo replaced by ``***`` (unchanged when it has none)."""
    if "@" not in url:
        return url
    try:
        parts = urlsplit(url)
    except ValueError:
        return _mask_text(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit((parts.scheme, f"{MASK}@{host}", parts.path, parts.query, parts.fragment))


def mask_urls_in(text: str, url: str) -> str:
    """``text`` with the userinfo of ``url`` masked wherever it appears (error details)."""
    try:
        netloc = urlsplit(url).netloc
    except ValueError:
        return _mask_text(text)
    userinfo = netloc.rpartition("@")[0]
    if not userinfo:
        return text
    text = text.replace(userinfo + "@", MASK + "@")
    password = userinfo.partition(":")[2]
    return text.replace(password, MASK) if len(password) >= MIN_LENGTH else text


def _mask_text(text: str) -> str:
    """Best effort for text that does not parse: drop anything between ``//`` and ``@``."""
    head, sep, rest = text.partition("//")
    if not sep or "@" not in rest.split("/", 1)[0]:
        return text
    return head + sep + MASK + "@" + rest.split("@", 1)[1]


def scrubbed_env(environ: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without ``*_API_KEY`` and ``*_TOKEN`` variables, nor ``secrets``' values."""
    values = {s for s in secrets if s}
    return {name: value for name, value in environ.items()
            if not name.upper().endswith(_SECRET_NAMES) and value not in values}


class Masker:
    """Masks secrets in a stream of chunks, holding back a chunk's end that could begin one."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= OUTPUT_MIN}, key=len,
                              reverse=True)
        self.held = ""

    def feed(self, chunk: str) -> str:
        """The masked text that is certain now; a possible secret's start is held back."""
        if not self.secrets:
            return chunk
        text = self.held + chunk
        for secret in self.secrets:
            text = text.replace(secret, OUTPUT_MASK)
        keep = max((k for s in self.secrets for k in range(min(len(s) - 1, len(text)), 0, -1)
                    if text.endswith(s[:k])), default=0)
        self.held = text[len(text) - keep:] if keep else ""
        return text[:len(text) - keep]

    def flush(self) -> str:
        """What is held back (no secret can complete any more)."""
        held, self.held = self.held, ""
        return held

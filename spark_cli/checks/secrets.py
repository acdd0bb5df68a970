"""Keeping API keys away from commands: a scrubbed environment and masked output.

`scrubbed_env` is the environment a command gets: without any variable named
``*_API_KEY`` or ``*_TOKEN`` (any case) and without any variable whose value is one of
the given secrets (the configured provider's key, wherever it came from). `Masker` hides
a secret's value that still reaches the output (a key read from a file, say) before the
output reaches the model or the screen, also when the value arrives split across reads:
it holds back the end of a chunk that could begin a secret (at most one character fewer
than the longest) until the next chunk says. Values shorter than ``MIN_SECRET`` are not
masked (they would hide ordinary words).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

MIN_SECRET = 8
MASK = "[secret]"
_SECRET_NAMES = ("_API_KEY", "_TOKEN")


def scrubbed_env(environ: Mapping[str, str], secrets: Iterable[str] = ()) -> dict[str, str]:
    """``environ`` without API keys and tokens (see the module doc)."""
    values = {s for s in secrets if s}
    return {name: value for name, value in environ.items()
            if not name.upper().endswith(_SECRET_NAMES) and value not in values}


class Masker:
    """Replaces every secret in a stream of text chunks with ``MASK``."""

    def __init__(self, secrets: Iterable[str]) -> None:
        self.secrets = sorted({s for s in secrets if len(s) >= MIN_SECRET}, key=len,
                              reverse=True)
        self.held = ""

    def feed(self, chunk: str) -> str:
        """The masked text that is certain now; a possible secret's start is held back."""
        if not self.secrets:
            return chunk
        text = self.held + chunk
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        keep = max((k for s in self.secrets for k in range(min(len(s) - 1, len(text)), 0, -1)
                    if text.endswith(s[:k])), default=0)
        self.held = text[len(text) - keep:] if keep else ""
        return text[:len(text) - keep]

    def flush(self) -> str:
        """What is held back (no secret can complete any more)."""
        held, self.held = self.held, ""
        return held

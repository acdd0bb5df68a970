"""Making a provider failure actionable: what to set, change or type next.

The channel only knows what the server said (401, 404) and where it asked;
the session knows which environment variable the key came from (or would
have), the base URL and the wire it was told to speak, so it names the fix.
"""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit

from spark_cli.protocol.secrets import mask_url
from spark_cli.session.config.presets import OVERRIDE_KEY_ENV
from spark_cli.session.config.settings import ProviderSettings

RESPONSES_KINDS = frozenset({"responses_ws", "responses_sse"})
"""The wires that ask for ``/v1/responses`` (the bundled engine has it: not these)."""


def auth_hint(provider: ProviderSettings) -> str:
    """One clause for an auth failure: the variable to set, or where the refused key came from."""
    var = provider.key_env or OVERRIDE_KEY_ENV
    if not provider.api_key:
        target = " to the engine's --token" if provider.name == "mock" else ""
        also = f" (or {OVERRIDE_KEY_ENV})" if var != OVERRIDE_KEY_ENV else ""
        return f"no API key was sent: set {var}{also}{target}"
    return f"the key from {var} ({provider.masked_key}) was refused: check it"


def with_v1(base_url: str) -> str | None:
    """``base_url`` with ``/v1`` appended when its path does not end in a version
    (``/v1``, ``/v2``, ``/api/v1``, ``/openai/v1``...); None when it already does."""
    try:
        parts = urlsplit(base_url)
    except ValueError:
        return None
    path = parts.path.rstrip("/")
    last = path.rsplit("/", 1)[-1]
    if len(last) >= 2 and last[0] == "v" and last[1:].isdigit():
        return None
    return mask_url(urlunsplit((parts.scheme, parts.netloc, path + "/v1", "", "")))


def not_found_hint(provider: ProviderSettings) -> str | None:
    """One clause for a 404: add ``/v1``, or speak Chat Completions; None when neither fits."""
    if provider.base_url is None:
        return None
    hints: list[str] = []
    fixed = with_v1(provider.base_url)
    if fixed is not None:
        hints.append(f"the base URL has no /v1: try --base-url {fixed}")
    if provider.kind in RESPONSES_KINDS and provider.name != "mock":
        hints.append("the server may not offer the Responses API (/v1/responses): use Chat "
                     "Completions with --provider openai-compatible (in the TUI: /provider "
                     "openai-compatible)")
    return "; or ".join(hints) if hints else None


def explain(kind: str, message: str, provider: ProviderSettings) -> str:
    """``message`` with the hint its ``kind`` calls for: ``auth_hint`` for 401/403,
    ``not_found_hint`` for 404; unchanged for other kinds."""
    if kind == "auth":
        return f"{message}; {auth_hint(provider)}"
    if kind == "not_found":
        hint = not_found_hint(provider)
        if hint is not None:
            return f"{message}; {hint}"
    return message

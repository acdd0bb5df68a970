"""Making a provider failure actionable: what to set when the key is missing or refused.

The channel only knows the server said 401; the session knows which
environment variable the key came from (or would have), so it names it:
``set SPARK_API_KEY`` beats "send 'Authorization: Bearer <token>'".
"""

from __future__ import annotations

from spark_cli.session.config.presets import OVERRIDE_KEY_ENV
from spark_cli.session.config.settings import ProviderSettings


def auth_hint(provider: ProviderSettings) -> str:
    """One clause for an auth failure: the variable to set, or where the refused key came from."""
    var = provider.key_env or OVERRIDE_KEY_ENV
    if not provider.api_key:
        target = " to the engine's --token" if provider.name == "mock" else ""
        also = f" (or {OVERRIDE_KEY_ENV})" if var != OVERRIDE_KEY_ENV else ""
        return f"no API key was sent: set {var}{also}{target}"
    return f"the key from {var} was refused: check it"


def explain(kind: str, message: str, provider: ProviderSettings) -> str:
    """``message`` with the hint its ``kind`` calls for (unchanged for other kinds)."""
    if kind == "auth":
        return f"{message}; {auth_hint(provider)}"
    return message

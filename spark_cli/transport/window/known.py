"""Windows of hosted models spark knows by name: nothing to ask (and nothing to pay for).

Only the ``openai`` and ``cerebras`` presets use this table; a name not in it keeps the
configured (or default) window. Longest matching prefix wins, so ``gpt-5.3-codex-spark``
is not read as ``gpt-5.3-codex``.
"""

from __future__ import annotations

KNOWN_WINDOWS: dict[str, dict[str, int]] = {
    "openai": {
        "gpt-5.3-codex-spark": 128_000,
        "gpt-5": 400_000,
        "gpt-4.1": 1_047_576,
        "gpt-4o": 128_000,
        "o3": 200_000,
        "o4-mini": 200_000,
        "codex-mini": 200_000,
    },
    "cerebras": {
        "gpt-oss-120b": 131_072,
        "qwen-3-coder-480b": 131_072,
        "qwen-3-235b": 131_072,
        "zai-glm": 131_072,
        "llama-3.3-70b": 131_072,
        "llama3.1-8b": 32_768,
    },
}


def known_window(provider: str, model: str) -> int | None:
    """The window of ``model`` on ``provider``'s hosted API, when spark knows it."""
    table = KNOWN_WINDOWS.get(provider, {})
    best = max((prefix for prefix in table if model.startswith(prefix)), key=len, default=None)
    return table[best] if best is not None else None

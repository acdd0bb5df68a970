"""What the engine checks on top of the protocol parsers: output token limits.

The protocol parsers accept any integer >= 1 for ``max_output_tokens``
(Responses) and ``max_tokens`` / ``max_completion_tokens`` (Chat). The engine's
models emit at most ``EngineConfig.max_output_tokens`` (default
:data:`~spark_cli.engine.core.config.MAX_OUTPUT_TOKENS`, 128,000), so a larger
value (``10**400`` is a valid JSON integer) is refused at intake with 400
``invalid_value`` naming the parameter, as OpenAI does; nothing downstream ever
sees a number too big for a float.
"""

from __future__ import annotations

from typing import Any

from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import WireError

CHAT_LIMITS = ("max_completion_tokens", "max_tokens")


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:20] + "..."


def check_output_limit(value: object, param: str, maximum: int) -> None:
    """400 unless ``value`` is None or an integer in ``1..maximum``."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise WireError(400, wire.INVALID_TYPE, f"'{param}' must be an integer", param)
    if value < 1:
        raise WireError(400, wire.INVALID_VALUE,
                        f"Invalid '{param}': integer below minimum value. Expected a value "
                        f">= 1, but got {_shown(value)} instead.", param)
    if value > maximum:
        raise WireError(400, wire.INVALID_VALUE,
                        f"{param} is too large: {_shown(value)}. This model supports at most "
                        f"{maximum} output tokens.", param)


def check_chat_limits(body: dict[str, Any], maximum: int) -> None:
    """The Chat body's ``max_completion_tokens`` and ``max_tokens`` (before parsing, so the
    error names the one that was sent)."""
    for param in CHAT_LIMITS:
        check_output_limit(body.get(param), param, maximum)

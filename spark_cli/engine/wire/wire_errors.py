"""The refusal the OpenAI wires raise (an ``error`` event, or an HTTP error body), and the
field checks every request parser shares."""

from __future__ import annotations

import json
from typing import Any

MISSING_REQUIRED_PARAMETER = "missing_required_parameter"
INVALID_TYPE = "invalid_type"
INVALID_VALUE = "invalid_value"
INVALID_JSON = "invalid_json"
RATE_LIMIT_EXCEEDED = "rate_limit_exceeded"


class WireError(Exception):
    """A request the engine refuses: becomes an ``error`` event or an HTTP error body."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        param: str | None = None,
        *,
        kind: str = "invalid_request_error",
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.param = param
        self.kind = kind
        self.headers = headers or {}

    def body(self) -> dict[str, Any]:
        """The OpenAI error object ``{"type", "code", "message", "param"}``."""
        return {"type": self.kind, "code": self.code, "message": self.message, "param": self.param}


def bad_request(param: str, message: str, code: str = INVALID_VALUE) -> WireError:
    """A 400 ``invalid_request_error`` naming ``param``."""
    return WireError(400, code, message, param)


def missing(param: str) -> WireError:
    """A 400 ``missing_required_parameter``: ``param`` is required."""
    return WireError(400, MISSING_REQUIRED_PARAMETER, f"'{param}' is required", param)


def too_many_requests(message: str, limit: int, retry_ms: int = 1000) -> WireError:
    """429 ``rate_limit_exceeded`` with OpenAI's request rate-limit headers."""
    return WireError(429, RATE_LIMIT_EXCEEDED, message, kind="rate_limit_error", headers={
        "retry-after-ms": str(retry_ms), "x-ratelimit-limit-requests": str(limit),
        "x-ratelimit-remaining-requests": "0",
        "x-ratelimit-reset-requests": f"{retry_ms / 1000:g}s",
    })


def string_field(obj: dict[str, Any], key: str, where: str = "", *,
                 empty: bool = False) -> str:
    """The required string ``obj[key]`` (not empty unless ``empty``)."""
    param = f"{where}.{key}" if where else key
    value = obj.get(key)
    if value is None:
        raise missing(param)
    if not isinstance(value, str):
        raise bad_request(param, f"'{param}' must be a string", INVALID_TYPE)
    if not value and not empty:
        raise bad_request(param, f"'{param}' must not be empty")
    return value


def optional_field(obj: dict[str, Any], key: str, kinds: type | tuple[type, ...], what: str,
                   where: str = "") -> Any:
    """``obj[key]`` or None, refused unless of ``kinds`` (an int is never a bool)."""
    param = f"{where}.{key}" if where else key
    value = obj.get(key)
    if value is None:
        return None
    if not isinstance(value, kinds) or (kinds is int and isinstance(value, bool)):
        raise bad_request(param, f"'{param}' must be {what}", INVALID_TYPE)
    return value


def loads_object(data: str | bytes, what: str) -> dict[str, Any]:
    """``data`` as a JSON object, or 400 ``invalid_json``."""
    try:
        obj = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise WireError(400, INVALID_JSON, f"{what} is not valid JSON: {exc}") from None
    except RecursionError:  # ``[`` x 5,000
        raise WireError(400, INVALID_JSON,
                        f"{what} is not valid JSON: the JSON is nested too deeply") from None
    if not isinstance(obj, dict):
        raise WireError(400, INVALID_JSON, f"{what} must be a JSON object")
    return obj


def _shown(value: object) -> str:
    text = str(value)
    return text if len(text) <= 24 else text[:20] + "..."


def check_output_limit(value: object, param: str, maximum: int) -> None:
    """400 unless ``value`` is None or an integer in ``1..maximum``."""
    if value is None:
        return
    if not isinstance(value, int) or isinstance(value, bool):
        raise WireError(400, INVALID_TYPE, f"'{param}' must be an integer", param)
    if value < 1:
        raise WireError(400, INVALID_VALUE,
                        f"Invalid '{param}': integer below minimum value. Expected a value "
                        f">= 1, but got {_shown(value)} instead.", param)
    if value > maximum:
        raise WireError(400, INVALID_VALUE,
                        f"{param} is too large: {_shown(value)}. This model supports at most "
                        f"{maximum} output tokens.", param)

"""The refusal the OpenAI wires raise, and the three codes that name a bad field.

:class:`WireError` becomes an ``error`` event on the WebSocket and an error body
over HTTP. The field codes (``missing_required_parameter``, ``invalid_type``,
``invalid_value``), :func:`bad_request` and :func:`missing` are shared by every request
parser (``responses``, ``tool_defs``, ``chat``); the other codes live with their wire.
"""

from __future__ import annotations

from typing import Any

MISSING_REQUIRED_PARAMETER = "missing_required_parameter"
INVALID_TYPE = "invalid_type"
INVALID_VALUE = "invalid_value"


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

"""The tools' plain values: a declaration, a call's arguments checked against it, its result.

Each way a model gets arguments wrong is a `ToolFailure` naming the fix; ``null`` for an
optional field is left out and ``10.0`` is ``10``; nothing else is coerced."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

from spark_cli.record import record

Value = str | int | float
_KIND_NAMES = {"string": "a string", "integer": "an integer", "number": "a number"}


@record
class ToolDef:
    """A tool as a request declares it: ``parameters`` is its arguments' JSON schema."""

    name: str
    description: str
    parameters: dict[str, Any]


@record
class ToolResult:
    """What a call gave: ``output`` for the model, ``summary`` one compact line for a UI."""

    ok: bool
    output: str
    summary: str


class ToolFailure(Exception):
    """A call that cannot be answered: ``message`` for the model, ``short`` for the summary."""

    def __init__(self, message: str, short: str) -> None:
        super().__init__(message)
        self.message = message
        self.short = short

    def result(self) -> ToolResult:
        return ToolResult(False, self.message, f"error: {self.short}")


@record
class Param:
    """One parameter of a tool."""

    name: str
    kind: Literal["string", "integer", "number"]
    description: str
    required: bool = False
    minimum: int | None = None


def schema(params: Sequence[Param]) -> dict[str, Any]:
    """The JSON schema of ``params``: an object, closed to other fields."""
    properties: dict[str, Any] = {}
    for param in params:
        prop: dict[str, Any] = {"type": param.kind, "description": param.description}
        if param.minimum is not None:
            prop["minimum"] = param.minimum
        properties[param.name] = prop
    return {
        "type": "object",
        "properties": properties,
        "required": [p.name for p in params if p.required],
        "additionalProperties": False,
    }


def _json_kind(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _clip(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


def _checked(tool: str, param: Param, value: object) -> Value:
    if param.kind == "string" and isinstance(value, str):
        return value
    if param.kind == "integer" and isinstance(value, float) and value.is_integer() \
            and abs(value) < 2**53:
        value = int(value)
    if param.kind != "string" and not isinstance(value, bool) and (
            isinstance(value, int) or (param.kind == "number" and isinstance(value, float))):
        if param.minimum is not None and value < param.minimum:
            raise ToolFailure(f"{tool}: {param.name} must be at least {param.minimum}, "
                              f"not {value}", f"bad {param.name}")
        return value
    shown = _clip(json.dumps(value, ensure_ascii=False))
    raise ToolFailure(f"{tool}: {param.name} must be {_KIND_NAMES[param.kind]}, not "
                      f"{_json_kind(value)} ({shown})", f"bad {param.name}")


def parse_arguments(tool: str, arguments: str, params: Sequence[Param]) -> dict[str, Value]:
    """The arguments of a call to ``tool``, checked; raises `ToolFailure` with the fix."""
    example = json.dumps({p.name: ("..." if p.kind == "string" else 1)
                          for p in params if p.required} or {})
    if not isinstance(arguments, str):
        raise ToolFailure(f"{tool}: arguments must be a JSON object such as {example}",
                          "bad arguments")
    if not arguments.strip():
        raw: object = {}
    else:
        try:
            raw = json.loads(arguments)
        except RecursionError:
            raise ToolFailure(f"{tool}: arguments are nested too deeply; send one flat JSON "
                              f"object such as {example}", "arguments not JSON") from None
        except ValueError as exc:
            why = (f"{exc.msg} at line {exc.lineno} column {exc.colno}"
                   if isinstance(exc, json.JSONDecodeError) else _clip(str(exc)))
            raise ToolFailure(f"{tool}: arguments are not valid JSON ({why}); send one JSON "
                              f"object such as {example}", "arguments not JSON") from None
    if not isinstance(raw, dict):
        raise ToolFailure(f"{tool}: arguments must be a JSON object such as {example}, not "
                          f"{_json_kind(raw)}", "arguments not an object")
    known = {p.name: p for p in params}
    unknown = sorted(set(raw) - set(known))
    if unknown:
        takes = ", ".join(p.name for p in params)
        raise ToolFailure(f"{tool}: unknown argument {_clip(unknown[0])!r}; {tool} takes "
                          f"{takes}", "unknown argument")
    checked: dict[str, Value] = {}
    for param in params:
        value = raw.get(param.name)
        if value is None:
            if param.required:
                raise ToolFailure(f"{tool}: missing required argument {param.name!r} "
                                  f"({param.description})", f"missing {param.name}")
            continue
        checked[param.name] = _checked(tool, param, value)
    return checked

"""An MCP tool as the wire takes it: a safe name (``mcp__SERVER__TOOL``, ``[A-Za-z0-9_-]{1,64}``)
and a plain object schema (local ``$ref``s inlined, ``oneOf`` as ``anyOf``); each change is a
note for ``/mcp``."""

from __future__ import annotations

import hashlib
import re
from typing import Any

PREFIX = "mcp__"
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_MAX_NAME = 64
_MAX_DEPTH = 32
_DROPPED = ("$schema", "$id", "$defs", "definitions", "$comment")


def wire_name(server: str, tool: str) -> str:
    """``mcp__SERVER__TOOL``, safe for both wires."""
    name = _UNSAFE.sub("_", f"{PREFIX}{server}__{tool}")
    if len(name) > _MAX_NAME:
        digest = hashlib.sha256(name.encode()).hexdigest()[:8]
        name = f"{name[:_MAX_NAME - 9]}_{digest}"
    return name


class _Simplifier:
    def __init__(self, root: dict[str, Any]) -> None:
        self.defs: dict[str, Any] = {**root.get("definitions", {}), **root.get("$defs", {})}
        self.notes: list[str] = []

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    def walk(self, node: Any, seen: tuple[str, ...] = (), depth: int = 0) -> Any:
        if depth > _MAX_DEPTH:
            self.note("nested too deep: cut")
            return {}
        if isinstance(node, list):
            return [self.walk(v, seen, depth + 1) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if isinstance(ref, str):
            key = ref.rsplit("/", 1)[-1]
            if not ref.startswith("#/") or key not in self.defs or key in seen:
                self.note(f"$ref {ref} not kept (any value)")
                return {}
            rest = {k: v for k, v in node.items() if k != "$ref"}
            return self.walk({**self.defs[key], **rest}, (*seen, key), depth + 1)
        out: dict[str, Any] = {}
        for key, value in node.items():
            if key in _DROPPED:
                continue
            if key == "oneOf":
                self.note("oneOf read as anyOf")
                key = "anyOf"
            out[key] = self.walk(value, seen, depth + 1) if key != "enum" else value
        return out


def wire_schema(schema: object) -> tuple[dict[str, Any] | None, list[str]]:
    """``(the schema to declare, notes)``; ``None``: the tool cannot be declared."""
    if not isinstance(schema, dict):
        return None, ["its input schema is not an object: left out"]
    if schema.get("type") != "object":
        if "type" in schema or "properties" not in schema:
            return None, [f"its input is {schema.get('type', 'untyped')!r}, not an object: "
                          "left out"]
        schema = {**schema, "type": "object"}
    simplifier = _Simplifier(schema)
    out = simplifier.walk(schema)
    out.setdefault("properties", {})
    return out, simplifier.notes

"""``use SERVER's TOOL with ...``: the rules brain calls the declared ``mcp__SERVER__TOOL``
with JSON or ``key=value`` arguments, then reports its answer."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.code.lookups import lookups

_USE = re.compile(r"\buse\s+(?:the\s+)?[`'\"]?([\w-]{1,32})[`'\"]?(?:'s|\s+server's)\s+"
                  r"(?:tool\s+)?[`'\"]?([\w.-]{1,64})[`'\"]?(?:\s+(?:tool\s+)?with\s+)?", re.I)
_PAIR = re.compile(r"([\w-]{1,64})=(\"[^\"\n]{0,2000}\"|'[^'\n]{0,2000}'|[^\s,]{1,2000})")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _value(raw: str) -> object:
    if raw[:1] in "'\"":
        return raw[1:-1]
    try:
        return json.loads(raw)
    except ValueError:
        return raw


def _arguments(rest: str) -> dict[str, object] | None:
    rest = rest.strip()
    if rest.startswith("{"):
        try:
            found, _ = json.JSONDecoder().raw_decode(rest)
        except ValueError:
            return None
        return found if isinstance(found, dict) else None
    return {key: _value(raw) for key, raw in _PAIR.findall(rest)}


def mcp_call(request: BrainRequest, text: str) -> Iterator[str | BrainCall] | None:
    """The answer to a ``use SERVER's TOOL`` instruction, or None: not one."""
    m = _USE.search(text)
    if m is None:
        return None
    server, tool = m.group(1), m.group(2)
    name = _UNSAFE.sub("_", f"mcp__{server}__{tool}")
    return _answer(request, name, f"{server}'s {tool}", _arguments(text[m.end():]))


def _answer(request: BrainRequest, name: str, shown: str,
            arguments: dict[str, object] | None) -> Iterator[str | BrainCall]:
    if name not in request.tools:
        declared = sorted(t for t in request.tools if t.startswith("mcp__"))
        yield (f"{shown} is not among this request's tools ({name}); declared MCP tools: "
               f"{', '.join(declared) or 'none'}. See /mcp for the servers' state.\n")
        return
    if arguments is None:
        yield "I could not read those arguments: give a JSON object or key=value words.\n"
        return
    answered = [c.output for c in lookups(request).calls if c.name == name and c.output]
    if answered:
        yield f"{shown} answered:\n\n```\n{answered[-1].rstrip()}\n```\n"
        return
    yield f"I'll call {shown}.\n"
    yield BrainCall(name, json.dumps(arguments))

"""A tool call in a few words, for a person: ``search TAX_RATE``, ``read src/shop/pricing.py 1–40``.

Front ends show one line per call (:func:`call_line`: ``label → summary``, or
``read src/app.py 1–40 of 120`` where the tool's summary already names what the
label does); both are made here once, from the arguments the model wrote, so
the TUI and ``spark edit`` agree. Arguments that are not a JSON object still
get a label (the name and the start of the text): the call itself fails and
says why.
"""

from __future__ import annotations

import json
from typing import Any

MAX_LABEL = 80
_VERBS = {"read_file": "read", "search": "search", "list_files": "list"}


def shorten(text: str, room: int) -> str:
    """``text`` on one line (runs of whitespace as one space), cut to ``room`` with ``…``."""
    text = " ".join(text.split())
    return text if len(text) <= room else text[:max(1, room - 1)] + "…"


def call_label(name: str, arguments: str) -> str:
    """``name``'s call with ``arguments`` (the model's JSON text) as a short label."""
    try:
        args: Any = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        args = None
    if not isinstance(args, dict):
        return shorten(f"{name} {arguments}", MAX_LABEL)
    verb = name[5:].replace("__", " ", 1) if name.startswith("mcp__") else _VERBS.get(name, name)
    words: list[str] = []
    if name == "search":
        words.append(str(args.get("pattern", "")))
        if args.get("path"):
            words.append(f"in {args['path']}")
        if args.get("glob"):
            words.append(str(args["glob"]))
    elif name == "read_file":
        words.append(str(args.get("path", "")))
        start, end = args.get("start_line"), args.get("end_line")
        if start is not None or end is not None:
            words.append(f"{start if start is not None else 1}–{end if end is not None else ''}")
    elif name == "list_files":
        words.append(str(args.get("path") or "."))
        if args.get("glob"):
            words.append(str(args["glob"]))
    else:
        words.extend(f"{k}={v}" for k, v in args.items())
    return shorten(" ".join([verb, *(w for w in words if w)]), MAX_LABEL)


def call_line(label: str, summary: str) -> str:
    """The call and its result as one line: ``search TAX_RATE → 3 hits``; when the summary
    starts with what the label names (``read`` and ``src/app.py 1–40 of 120``), the label's
    verb and the summary: ``read src/app.py 1–40 of 120``."""
    verb, _, rest = label.partition(" ")
    if rest and summary.startswith(rest):
        return f"{verb} {summary}"
    return f"{label} → {summary}"

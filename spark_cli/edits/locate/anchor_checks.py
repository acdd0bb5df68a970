"""Checks of a hunk against the file's definitions before it is placed: invented ``@@``
anchors, where lines inserted under an anchor go, and elided searches that cross a
definition's end."""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence

from spark_cli.edits.lang.anchors import main_name, resolves
from spark_cli.edits.lang.definitions import definitions
from spark_cli.edits.lang.syntax import parse_text
from spark_cli.edits.locate.misses import LocateFailed

_WS = re.compile(r"\s+")
_KEYWORDS = (r"(?:def|class|function|fn|func|fun|sub|proc|method|module|struct|interface|"
             r"enum|trait|impl|type|namespace|object|record|macro)")
_SHOWN = 6


def unresolved_anchor(text: str, language: str | None, anchors: Sequence[str]) -> str | None:
    """The first of ``anchors`` that names nothing in ``text``, or None."""
    for raw in anchors:
        anchor = raw.strip()
        if not anchor:
            continue
        norm = anchor.rstrip(":{ ").strip() or anchor
        if norm in text:  # one C scan: the usual case
            continue
        if resolves(text, language, anchor):
            continue
        if _WS.sub(" ", norm) in _WS.sub(" ", text) or _named_in_text(text, norm):
            continue
        return raw
    return None


def _named_in_text(text: str, norm: str) -> bool:
    name, _kind = main_name(_WS.sub(" ", norm))
    if not name or len(name) < 2:
        return False
    pattern = re.compile(rf"^[^\n]*\b{_KEYWORDS}\b[^\n]*(?<![\w$]){re.escape(name)}(?![\w$])",
                         re.M)
    return pattern.search(text) is not None


def anchor_not_found(text: str, language: str | None, anchor: str) -> LocateFailed:
    """The refusal for an anchor that names nothing, with the definitions most like it."""
    norm = _WS.sub(" ", anchor.strip().rstrip(":{ ").strip())
    defs = definitions(text, language) if language else []
    nearest: list[tuple[int, str]] = []
    if defs:
        name = main_name(norm)[0] or norm
        close = difflib.get_close_matches(name, [d.name for d in defs], n=_SHOWN, cutoff=0.5)
        picked = [d for d in defs if d.name in close]
        picked += [d for d in defs if d not in picked][:max(0, 3 - len(picked))]
        nearest = [(d.start + 1, d.header) for d in picked[:_SHOWN]]
        what = "Definitions there"
    else:
        stripped = {line.strip(): i for i, line in reversed(list(enumerate(text.split("\n"))))}
        close = difflib.get_close_matches(norm, [k for k in stripped if k], n=3, cutoff=0.6)
        nearest = sorted((stripped[k] + 1, k) for k in close)
        what = "Similar lines"
    listing = ""
    if nearest:
        shown = "; ".join(f"line {n}: {_short(h)!r}" for n, h in nearest)
        listing = f" {what}: {shown}."
    return LocateFailed(
        f"The anchor {anchor.strip()!r} matched no definition or line of the file, so the hunk "
        f"cannot be placed by it.{listing} Use a line that exists in the file as the @@ header "
        "(the enclosing def/class/function line), or a bare @@ with enough context lines.",
        "missing")


def _short(header: str, limit: int = 70) -> str:
    return header if len(header) <= limit else header[:limit - 3] + "..."


def body_start(text: str, language: str | None, row: int) -> int:
    """The row before which lines inserted under the header on ``row`` go."""
    if language is None:
        return row + 1
    try:
        tree = parse_text(language, text)
    except ImportError:
        return row + 1
    line = text.split("\n", row + 1)[row] if row < text.count("\n") + 1 else ""
    column = len(line[:len(line) - len(line.lstrip())].encode("utf-8"))
    node = tree.root_node.descendant_for_point_range((row, column), (row, column))
    while node is not None and node.child_by_field_name("body") is None:
        node = node.parent
    if node is None:
        return row + 1
    body = node.child_by_field_name("body")
    if body is None or body.start_point.row < row or node.start_point.row > row:
        return row + 1
    if (body.text or b"")[:1] in (b"{", b"["):  # a brace body: after the line opening it
        return max(body.start_point.row + 1, row + 1)
    if body.start_point.row == row or not body.named_children:
        return row + 1
    first = body.named_children[0]
    if first.type == "expression_statement" and first.named_child_count == 1 and \
            first.named_children[0].type in ("string", "concatenated_string"):
        return first.end_point.row + 1  # after the docstring
    return max(body.start_point.row, row + 1)


def crossed_definition(text: str, language: str | None, first: int,
                       last: int) -> LocateFailed | None:
    """The refusal for an elided match leaving the definition it starts in, or None."""
    if language is None or last <= first:
        return None
    holding = [d for d in definitions(text, language) if d.start <= first <= d.end]
    scope = max(holding, key=lambda d: (d.start, -d.end), default=None)
    if scope is None or last <= scope.end:
        return None
    kind = "function" if scope.kind == "function" else "definition"
    return LocateFailed(
        f"the search text elides code ('... existing code ...') and starts in the {kind} "
        f"{scope.name!r} (lines {scope.start + 1}-{scope.end + 1}), but its last lines only "
        f"match at line {last + 1}, past the end of {scope.name!r}: an elided search must "
        f"start and end inside one definition. Quote the lines of {scope.name!r} you mean "
        "(its own last lines), or send one block per definition", "elision")

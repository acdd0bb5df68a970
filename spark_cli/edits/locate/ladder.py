"""The locate ladder: where in a file one hunk's SEARCH text is, strict to loose; each step
compares whole lines after a fixed normalisation, never by edit distance."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.edits.locate.anchor_checks import (
    anchor_not_found,
    body_start,
    crossed_definition,
    unresolved_anchor,
)
from spark_cli.edits.locate.elision import (
    has_placeholder,
    join_pieces,
    leading_blanks,
    split_elided,
    unbacked_placeholder,
)
from spark_cli.edits.locate.matching import FINDERS, LineIndex, Match, line_index
from spark_cli.edits.locate.misses import LocateFailed, MatchHints, missing
from spark_cli.edits.model.blocks import Hunk
from spark_cli.record import record

if TYPE_CHECKING:
    from spark_cli.edits.lang.anchors import Range

_IDENT = re.compile(r"[A-Za-z_$][\w$]*")


@record
class Located:
    """Replace ``text[start:end]`` with ``replacement``; ``line`` is 1-based."""

    start: int
    end: int
    replacement: str
    step: str
    line: int


def _lines(text: str) -> list[str]:
    if not text:
        return []
    if "\r" in text:  # the file is "\n"-normalised: so is the hunk
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def _trim_blank_edges(search: list[str], replace: list[str]) -> tuple[list[str], list[str]]:
    """Without the search's blank edge lines, and as many of the replacement's."""
    lead = leading_blanks(search)
    tail = leading_blanks(search[lead:][::-1])
    r_lead = min(leading_blanks(replace), lead)
    r_tail = min(leading_blanks(replace[r_lead:][::-1]), tail)
    return search[lead:len(search) - tail], replace[r_lead:len(replace) - r_tail]


def _variants(search: list[str], replace: list[str], trimmed: tuple[list[str], list[str]],
              literal: tuple[str, str] | None) -> list[tuple[list[str], list[str]]]:
    """The readings tried in order: as written, without blank edge lines, then `literal`'s."""
    variants = [(search, replace)]
    if trimmed[0] != search:
        variants.append(trimmed)
    if literal is not None:  # context lines read whole: the model dropped their space
        whole = (_lines(literal[0]), _lines(literal[1]))
        variants.append(whole)
        whole_trimmed = _trim_blank_edges(*whole)
        if whole_trimmed[0] != whole[0]:
            variants.append(whole_trimmed)
    return variants


def locate(text: str, hunk: Hunk, *, language: str | None = None,
           search_from: int = 0, first_of_many: bool = False) -> Located:
    """Find where ``hunk.search`` is in ``text`` (the first `matching.FINDERS` step whose match
    fits the hints), or raise `LocateFailed`; ``first_of_many``: take the first match at or
    after ``search_from`` (identical hunks applied in order)."""
    index = line_index(text)
    anchors = hunk.anchors
    at_eof = hunk.at_eof
    search, replace = _lines(hunk.search), _lines(hunk.replace)
    if anchors:
        unknown = unresolved_anchor(text, language, anchors)
        if unknown is not None:
            raise anchor_not_found(text, language, unknown)
    context = MatchHints(index, language, anchors, at_eof, search_from, first_of_many)
    if not any(line.strip() for line in search):
        return _insert(index, replace, context.ranges, anchors, language)
    trimmed = _trim_blank_edges(search, replace)
    variants = _variants(search, replace, trimmed, hunk.literal)
    fallback: tuple[list[Match], str, list[str], list[str]] | None = None
    for step, find in FINDERS.items():
        for s_lines, r_lines in variants:
            matches = find(index, s_lines, r_lines)
            if not matches:
                continue
            if not context.fits_hints(matches):  # a looser reading may fit them
                fallback = fallback or (matches, step, s_lines, r_lines)
                continue
            return _chosen(index, context, matches, step, s_lines, r_lines, hunk.replace)
    if fallback is not None:
        return _chosen(index, context, *fallback, hunk.replace)
    pieces = split_elided(*trimmed)
    if pieces is not None:
        try:
            spot = _locate_elided(text, pieces, anchors, at_eof, language, search_from)
        except LocateFailed:
            spot = None
        if spot is not None:
            if len(pieces) > 1:  # its pieces must stay inside the head's definition
                crossed = crossed_definition(text, language, spot.line - 1,
                                             text.count("\n", 0, max(spot.end - 1, spot.start)))
                if crossed is not None:
                    raise crossed
            return spot
    unfenced = _unfenced(*trimmed)
    if unfenced is not None:  # the model fenced both sides inside the block
        try:
            return locate(text, Hunk(*unfenced, anchors, at_eof), language=language,
                          search_from=search_from, first_of_many=first_of_many)
        except LocateFailed:
            pass
    raise missing(index, trimmed[0], trimmed[1], anchors, context.ranges)


_FENCE_OPEN = re.compile(r"[ \t]*(`{3,}|~{3,})[\w+#.-]*[ \t]*$")


def _unfenced(search: list[str], replace: list[str]) -> tuple[str, str] | None:
    """SEARCH and REPLACE each wrapped in a code fence of their own: their text without it."""
    def inner(lines: list[str]) -> list[str] | None:
        if len(lines) < 2:
            return None
        opener = _FENCE_OPEN.match(lines[0])
        if opener is None or lines[-1].strip() != opener.group(1):
            return None
        return lines[1:-1]

    s, r = inner(search), inner(replace)
    if not s or r is None:
        return None
    return "\n".join(s) + "\n", "\n".join(r) + "\n" if r else ""


def _chosen(index: LineIndex, context: MatchHints, matches: list[Match], step: str,
            s_lines: list[str], r_lines: list[str], replace: str) -> Located:
    chosen, by_anchor = context.choose(matches)
    _check_placeholders(index, chosen, s_lines, replace)
    return _located(index, chosen, ("anchor:" if by_anchor else "") + step, not r_lines)


def _check_placeholders(index: LineIndex, match: Match, search: list[str],
                        replace: str) -> None:
    """Refuse a REPLACE placeholder that SEARCH lacks: it would delete the code."""
    if not has_placeholder(replace):  # the usual case: no line table needed
        return
    line = unbacked_placeholder(search, replace, index.lines[match.first:match.last + 1])
    if line is not None:
        raise LocateFailed(
            f"the replacement contains {line!r}, a placeholder for code that the search "
            "text does not have: applying it would delete that code. Spell the lines out "
            "in full, or put the same placeholder line in both SEARCH and REPLACE (in a "
            "patch: as a context line), so the lines it stands for are kept", "placeholder")


def _locate_elided(text: str, pieces: list[tuple[list[str], list[str]]],
                   anchors: tuple[str, ...], at_eof: bool, language: str | None,
                   search_from: int) -> Located:
    """Each piece in order: the first as the whole hunk would be, the rest after it."""
    found: list[Located] = []
    for n, (s_piece, r_piece) in enumerate(pieces):
        piece = Hunk("\n".join(s_piece) + "\n", "\n".join(r_piece) + "\n" if r_piece else "",
                       anchors if n == 0 else (), at_eof and n == len(pieces) - 1)
        after = found[-1].end if found else search_from
        spot = locate(text, piece, language=language, search_from=after)
        if found and spot.start < after:
            raise LocateFailed("an elided piece is out of order", "missing")
        found.append(spot)
    spans = [(f.start, f.end, f.replacement) for f in found]
    return Located(found[0].start, found[-1].end, join_pieces(text, spans), "elision",
                   found[0].line)


def _located(index: LineIndex, match: Match, step: str, deletion: bool) -> Located:
    start, end = match.start, match.end
    if deletion and step != "fragment":  # drop the lines' newline too
        if end < len(index.text):
            end += 1
        elif start > 0:
            start -= 1
    return Located(start, end, match.make(), step, match.first + 1)


def _insert(index: LineIndex, replace: list[str], ranges: list[Range],
            anchors: Sequence[str], language: str | None) -> Located:
    body = "\n".join(replace)
    if len(ranges) > 1:
        lines = ", ".join(str(s + 1) for s, _ in ranges)
        raise LocateFailed(
            f"the anchor {' / '.join(anchors)!r} matches {len(ranges)} places (lines {lines}) "
            "and the hunk has no context lines to choose between them; add a few unchanged "
            "lines around the change", "ambiguous", tuple(s + 1 for s, _ in ranges))
    text = index.text
    if ranges:
        at = body_start(text, language, _header_row(index, ranges[0], anchors[-1]))
        position = index.starts[at] if at < len(index.starts) - 1 else len(text)
        if position == len(text) and text and not text.endswith("\n"):
            return Located(position, position, "\n" + body, "anchor:insert", at + 1)
        return Located(position, position, body + "\n" if replace else "", "anchor:insert",
                       at + 1)
    if text and not text.endswith("\n") and body:
        body = "\n" + body
    elif body:
        body += "\n"
    return Located(len(text), len(text), body, "append", index.real + 1)


def _header_row(index: LineIndex, span: Range, anchor: str) -> int:
    words = [w for w in _IDENT.findall(anchor) if len(w) > 1]
    name = words[-1] if words else ""
    if "(" in anchor:
        before = _IDENT.findall(anchor.split("(", 1)[0])
        name = before[-1] if before else name
    pattern = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])") if name else None
    for row in range(span[0], min(span[1], index.real - 1) + 1):
        if pattern is None or pattern.search(index.lines[row]):
            return row
    return span[0]

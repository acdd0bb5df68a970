"""Properties of locate: a unique slice is found exactly; a repeated one is refused."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from spark_cli.edits.locate.ladder import LocateFailed, locate
from spark_cli.edits.model.blocks import Hunk

_line = st.text(alphabet=st.sampled_from(list("ab (){}:=\t ü日—“")), max_size=12)
_lines = st.lists(_line, min_size=1, max_size=30)


def _occurrences(lines: list[str], piece: list[str]) -> int:
    n = len(piece)
    return sum(lines[i:i + n] == piece for i in range(len(lines) - n + 1))


def _strip_count(lines: list[str], piece: list[str]) -> int:
    key = [p.strip() for p in piece]
    n = len(piece)
    return sum([x.strip() for x in lines[i:i + n]] == key for i in range(len(lines) - n + 1))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_lines, st.data(), st.booleans())
def test_a_unique_slice_is_found_exactly(lines: list[str], data: st.DataObject,
                                         final_newline: bool) -> None:
    text = "\n".join(lines) + ("\n" if final_newline else "")
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    piece = lines[start:end]
    # make it unique at every step of the ladder (the looser steps must not see a twin)
    assume(_strip_count(lines, piece) == 1 and _occurrences(lines, piece) == 1)
    assume(piece[0].strip() and piece[-1].strip())  # blank edges are trimmed by design
    found = locate(text, Hunk("\n".join(piece) + "\n", "X\n"))
    assert found.step == "exact"
    assert found.line == start + 1
    assert text[found.start:found.end] == "\n".join(piece)
    assert text[:found.start] + found.replacement + text[found.end:] == "\n".join(
        [*lines[:start], "X", *lines[end:]]) + ("\n" if final_newline else "")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_lines, _lines, _lines, st.data())
def test_a_slice_that_appears_twice_is_ambiguous(head: list[str], middle: list[str],
                                                 tail: list[str], data: st.DataObject) -> None:
    piece = data.draw(st.lists(_line, min_size=1, max_size=5))
    assume(any(p.strip() for p in piece))
    lines = [*head, *piece, *middle, *piece, *tail]
    text = "\n".join(lines) + "\n"
    try:
        found = locate(text, Hunk("\n".join(piece) + "\n", "X\n"))
    except LocateFailed as failure:
        assert failure.reason == "ambiguous"
        assert len(failure.candidates) >= 2
        return
    raise AssertionError(f"a repeated slice was located at line {found.line} ({found.step})")


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_lines, _lines)
def test_locate_never_crashes_and_stays_in_bounds(lines: list[str], search: list[str]) -> None:
    text = "\n".join(lines)
    try:
        found = locate(text, Hunk("\n".join(search), "r"))
    except LocateFailed as failure:
        assert failure.reason in ("missing", "ambiguous") and failure.message
        return
    assert 0 <= found.start <= found.end <= len(text)
    assert 1 <= found.line <= text.count("\n") + 2  # an append starts on the next line


_code_line = st.text(alphabet=st.sampled_from(list("defclass fn(){}:=x_1\t \"'#.")), max_size=16)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_code_line, min_size=1, max_size=25), st.lists(_code_line, min_size=1,
       max_size=3), st.sampled_from([None, "python", "javascript", "rust", "go", "ruby"]),
       st.lists(_code_line, max_size=3))
def test_anchors_never_crash_and_stay_in_bounds(lines: list[str], anchors: list[str],
                                                language: str | None,
                                                search: list[str]) -> None:
    from spark_cli.edits.lang.anchors import find_anchor_ranges

    text = "\n".join(lines) + "\n"
    for start, end in find_anchor_ranges(text, language, anchors):
        assert 0 <= start <= end < len(lines) + 1
    try:
        found = locate(text, Hunk("\n".join(search), "r\n", anchors=tuple(anchors)),
                       language=language)
    except LocateFailed as failure:
        assert failure.message
        return
    assert 0 <= found.start <= found.end <= len(text)

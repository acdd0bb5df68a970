"""RE2 patterns: matching lines found in bytes agree with a line-by-line search."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.tools.search import Hit, compile_pattern


def test_hits_give_line_numbers_bounds_and_column() -> None:
    matcher = compile_pattern("b+")
    data = b"abbc\nxyz\nbb"
    assert list(matcher.hits(data)) == [Hit(1, 0, 4, 1), Hit(3, 9, 11, 0)]
    assert matcher.count(data) == 2 and matcher.count(data, 5) == 1


def test_an_empty_match_counts_real_lines_only() -> None:
    matcher = compile_pattern("x*")
    assert [h.line for h in matcher.hits(b"a\nb\n")] == [1, 2]
    assert matcher.count(b"a\nb\n") == 2
    assert list(matcher.hits(b"")) == [] and matcher.count(b"") == 0


def test_fixed_text_when_the_regex_does_not_compile() -> None:
    assert compile_pattern("a(").fixed and not compile_pattern("a\\(").fixed
    assert [h.line for h in compile_pattern("a(").hits(b"a(\na\n")] == [1]


_LINES = st.lists(st.text(alphabet="ab( \t.", max_size=12), max_size=12)


@given(_LINES, st.text(alphabet="ab(.", min_size=1, max_size=3))
def test_agrees_with_a_line_by_line_search(lines: list[str], needle: str) -> None:
    data = "\n".join(lines).encode()
    matcher = compile_pattern(needle)
    rx = re.compile(re.escape(needle) if matcher.fixed else needle)
    expected = [i for i, line in enumerate("\n".join(lines).split("\n"), 1) if rx.search(line)]
    if data.endswith(b"\n") or not data:
        expected = [i for i in expected if i <= data.count(b"\n")]
    got = [hit.line for hit in matcher.hits(data)]
    assert got == expected
    assert matcher.count(data) == len(expected)

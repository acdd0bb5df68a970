"""The outline: grouping, gap marks, and fitting a token budget."""

from __future__ import annotations

import pytest

from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.context.rank import Ranked
from spark_cli.session.context.repo_map import fit, render
from spark_cli.session.context.tags import Definition


def _ranked(count: int) -> list[Ranked]:
    out = []
    for i in range(count):
        path = f"pkg/mod{i % 7}.py"
        line = (i // 7) * 10
        out.append(Ranked(path, Definition(f"name_{i}", "function", line,
                                           f"def name_{i}(argument_one, argument_two):"),
                          1.0 / (i + 1)))
    return out


def test_render_groups_by_file_in_rank_order_and_marks_gaps() -> None:
    ranked = [
        Ranked("b.py", Definition("g", "function", 10, "def g():"), 0.9),
        Ranked("a.py", Definition("f", "function", 0, "def f():"), 0.8),
        Ranked("b.py", Definition("C", "class", 2, "class C:"), 0.7),
        Ranked("b.py", Definition("m", "method", 3, "    def m(self):"), 0.6),
    ]
    assert render(ranked) == ("b.py:\n│class C:\n│    def m(self):\n⋮\n│def g():\n"
                              "a.py:\n│def f():\n")


def test_two_names_on_one_line_show_it_once() -> None:
    line = Definition("a", "constant", 0, "a = b = 1")
    twin = Definition("b", "constant", 0, "a = b = 1")
    assert render([Ranked("x.py", line, 1.0), Ranked("x.py", twin, 0.5)]) == "x.py:\n│a = b = 1\n"


@pytest.mark.parametrize("budget", [0, 10, 50, 200, 1000, 5000])
def test_fit_never_exceeds_the_budget_and_takes_the_best_first(budget: int) -> None:
    ranked = _ranked(300)
    outline = fit(ranked, budget)
    assert outline.tokens == count_tokens(outline.text) <= budget
    assert outline.available == 300
    assert outline.text == render(ranked[:outline.definitions])
    if outline.definitions < 300 and budget >= 200:  # nearly full: only the bound is spare
        assert outline.tokens >= 0.8 * budget


def test_more_budget_shows_more() -> None:
    ranked = _ranked(300)
    sizes = [fit(ranked, b).definitions for b in (50, 200, 1000)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert fit(ranked, 10**6).definitions == 300
    assert fit([], 1000).text == ""

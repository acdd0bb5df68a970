"""The package's shape: no import circles (type-only imports count) and no function above
cyclomatic complexity 20 as radon counts it (boolean operators and comprehensions
included, unlike ruff's C901)."""

from __future__ import annotations

from pathlib import Path

import grimp
from radon.complexity import cc_visit

import spark_cli

MOST_COMPLEX = 20
PACKAGE = Path(spark_cli.__file__).parent


def _circles() -> set[frozenset[str]]:
    """Strongly connected components of more than one module in spark's import graph."""
    graph = grimp.build_graph("spark_cli", cache_dir=None)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(module: str) -> None:  # Tarjan's algorithm
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == module:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def _complex() -> dict[str, int]:
    """``path:function`` -> complexity, for every function above ``MOST_COMPLEX``."""
    over: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        for block in cc_visit(path.read_text()):
            blocks = [block, *getattr(block, "methods", ())]
            for item in blocks:
                if item.complexity > MOST_COMPLEX:
                    over[f"{rel}:{item.fullname}"] = item.complexity
    return over


def test_no_import_circles() -> None:
    assert _circles() == set()


def test_no_function_above_complexity_20() -> None:
    assert _complex() == {}

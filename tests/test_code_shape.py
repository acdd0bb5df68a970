"""The package's shape: no import circles (type-only imports count), between modules or
between the sub-packages of a package; no function above cyclomatic complexity 20 as
radon counts it (boolean operators and comprehensions included, unlike ruff's C901); a
docstring on every dataclass; one record type; no two classes of one name; no two modules
of one name, no package of more than 15 modules, and the package within its line budget."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest
from radon.complexity import cc_visit

import spark_cli

MOST_COMPLEX = 20
PACKAGE = Path(spark_cli.__file__).parent


def _components(edges: dict[str, set[str]]) -> set[frozenset[str]]:
    """Strongly connected components of more than one node (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: set[frozenset[str]] = set()

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in sorted(edges.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.add(member)
                if member == node:
                    break
            if len(component) > 1:
                found.add(frozenset(component))

    for node in sorted(edges):
        if node not in index:
            visit(node)
    return found


def _circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """Circles in spark's import graph, module by module."""
    return _components({m: set(graph.find_modules_directly_imported_by(m))
                        for m in graph.modules})


def _package_circles(graph: grimp.ImportGraph) -> set[frozenset[str]]:
    """Circles between the children of each package (a sub-package counts as one node:
    ``building`` importing ``context`` and ``context`` importing ``building``)."""
    found: set[frozenset[str]] = set()
    for package in sorted(m for m in graph.modules if graph.find_children(m)):
        children = graph.find_children(package)

        def child(module: str, children: set[str] = children) -> str | None:
            return next((c for c in children if module == c or module.startswith(c + ".")),
                        None)

        edges: dict[str, set[str]] = {}
        for module in graph.find_descendants(package):
            source = child(module)
            for imported in graph.find_modules_directly_imported_by(module):
                target = child(imported)
                if source is not None and target is not None and target != source:
                    edges.setdefault(source, set()).add(target)
        found |= _components(edges)
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


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("spark_cli", cache_dir=None)


def test_no_import_circles(graph: grimp.ImportGraph) -> None:
    assert _circles(graph) == set()


def test_no_circles_between_sub_packages(graph: grimp.ImportGraph) -> None:
    assert _package_circles(graph) == set()


def test_the_circle_finder_finds_circles() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _components(edges) == {frozenset({"a", "b", "c"})}


def test_no_function_above_complexity_20() -> None:
    assert _complex() == {}


def _docless_dataclasses() -> list[str]:
    """``path:class`` of every dataclass in the package without a docstring."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and ast.get_docstring(node) is None and any(
                    ast.unparse(d).split("(")[0].endswith(("dataclass", "record"))
                    for d in node.decorator_list):
                found.append(f"{path.relative_to(PACKAGE.parent).as_posix()}:{node.name}")
    return found


def test_every_dataclass_has_a_docstring() -> None:
    # dataclasses writes a docless class's docstring from ``inspect.signature``: the first
    # such class on a one-shot's way to its request imports inspect (ast, dis, tokenize:
    # ~8 ms), and each one computes a signature (docs/benchmarks.md, Ledger)
    assert _docless_dataclasses() == []


def test_every_frozen_value_class_is_a_record() -> None:
    # one way to declare a value type (spark_cli.record): a frozen dataclass declared
    # otherwise compiles five more methods at import
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                    "dataclass(" in ast.unparse(d) and "frozen=True" in ast.unparse(d)
                    for d in node.decorator_list):
                found.append(f"{path.relative_to(PACKAGE.parent).as_posix()}:{node.name}")
    assert found == []


def _shared_class_names(root: Path) -> dict[str, list[str]]:
    """Class name -> ``path:line`` of each class so named under ``root``, for names used more
    than once."""
    where: dict[str, list[str]] = {}
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                rel = path.relative_to(root).as_posix()
                where.setdefault(node.name, []).append(f"{rel}:{node.lineno}")
    return {name: found for name, found in where.items() if len(found) > 1}


def test_no_two_classes_share_a_name() -> None:
    # a class name says which class it is wherever it is read (no `import X as Y` to tell
    # two apart), nested classes included
    assert _shared_class_names(PACKAGE) == {}


def test_the_shared_name_finder_finds_nested_classes(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("class Link:\n    pass\n")
    (tmp_path / "b.py").write_text("def f():\n    class Link:\n        pass\n")
    (tmp_path / "c.py").write_text("class Links:\n    pass\n")
    assert _shared_class_names(tmp_path) == {"Link": ["a.py:1", "b.py:2"]}


def _marked(lines: list[str], index: int) -> bool:
    """The import at ``lines[index]``, or the run of imports it ends, or the comment line
    above that run, says ``# deferred: PATH``."""
    while index >= 0 and "# deferred: " not in lines[index]:
        if not lines[index].strip().startswith(("import ", "from ")):
            return False
        index -= 1
    return index >= 0


def _unmarked_imports(path: Path) -> list[int]:
    """Lines of imports inside functions without ``# deferred: PATH`` (on the line or above)."""
    lines = path.read_text().splitlines()
    found = []
    for node in ast.walk(ast.parse("\n".join(lines))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if isinstance(inner, ast.Import | ast.ImportFrom) and not _marked(
                        lines, inner.lineno - 1):
                    found.append(inner.lineno)
    return sorted(set(found))


def test_an_import_inside_a_function_names_the_start_up_path_it_keeps_fast(
        tmp_path: Path) -> None:
    # imports sit at the top of a module, unless deferred for start-up
    found = {path.relative_to(PACKAGE).as_posix(): _unmarked_imports(path)
             for path in sorted(PACKAGE.rglob("*.py"))}
    assert {path: lines for path, lines in found.items() if lines} == {}
    (tmp_path / "m.py").write_text("def f():\n    import json\n    # deferred: x\n"
                                   "    import os\n    import re\n")
    assert _unmarked_imports(tmp_path / "m.py") == [2]


MOST_MODULES = 15
MOST_LINES = 44_000  # issue 41 item 7: spark_cli/ at most 44,000 lines


def test_every_module_name_is_used_once() -> None:
    """A name says which module it is: no two modules of spark_cli share one."""
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_no_package_holds_more_than_fifteen_modules() -> None:
    crowded = {str(folder.relative_to(PACKAGE)): count for folder in [PACKAGE, *PACKAGE.rglob("*")]
               if folder.is_dir() and (count := len([p for p in folder.glob("*.py")
                                                     if p.name != "__init__.py"])) > MOST_MODULES}
    assert crowded == {}


def test_the_package_stays_under_its_line_budget() -> None:
    """`find spark_cli -name '*.py' | xargs cat | wc -l`: the round's ceiling (issue 41)."""
    lines = sum(len(path.read_bytes().splitlines()) for path in PACKAGE.rglob("*.py"))
    assert lines <= MOST_LINES

"""Docstrings name only what is there: every :mod:`x` and :func:`x` in spark_cli resolves
(relative to the module that names it, or absolute), and so does every dotted
``spark_cli.…`` name in its text, so a module or function that moves or goes cannot leave
a docstring or comment pointing at it. They say what and why: no module docstring past
twelve lines, and no measured figure (milliseconds, percentages, dates of runs) in a
docstring or comment outside bench/, where docs/benchmarks.md keeps them."""

from __future__ import annotations

import ast
import importlib
import io
import re
import tokenize
from pathlib import Path

import spark_cli

PACKAGE = Path(spark_cli.__file__).parent
_ROLE = re.compile(r":(mod|func):`~?([\w.]+)`")
_ABSOLUTE = re.compile(r"(?<![\w.])(spark_cli(?:\.\w+)+)")
_FIGURE = re.compile(r"\d+(?:\.\d+)? ?(?:ms\b|%)|paired runs?, \d{4}-|\b20\d\d-\d\d-\d\d\b")
_QUOTED = re.compile(r"``.*?``|\"[^\"\n]*\"")
"""Literal text (a format such as ``250ms``, a quoted message) is not a figure."""
MOST_DOC_LINES = 12


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(path: Path) -> str:
    name = _module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _candidates(path: Path, target: str) -> list[str]:
    """The dotted names ``target`` may stand for, written in the module at ``path``."""
    if target.startswith("spark_cli"):
        return [target]
    if target.startswith("."):
        package = _package(path).split(".")
        dots = len(target) - len(target.lstrip("."))
        return [".".join([*package[:len(package) - dots + 1], target.lstrip(".")])]
    here = _module_name(path).split(".")
    return [".".join([*here[:k], target]) for k in range(len(here), 0, -1)] + [target]


def _resolves(dotted: str) -> bool:
    parts = dotted.split(".")
    for keep in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:keep]))
        except ImportError:
            continue
        for name in parts[keep:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_module_and_function_a_docstring_names_exists() -> None:
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for found in _ROLE.finditer(text):
            if not any(_resolves(name) for name in _candidates(path, found.group(2))):
                line = text.count("\n", 0, found.start()) + 1
                missing.append(f"{path.relative_to(PACKAGE)}:{line}: {found.group(0)}")
    assert missing == []


def test_every_dotted_spark_cli_name_in_the_package_exists() -> None:
    missing = []
    for path in sorted(PACKAGE.rglob("*.py")):
        text = path.read_text()
        for found in _ABSOLUTE.finditer(text):
            if not _resolves(found.group(1)):
                line = text.count("\n", 0, found.start()) + 1
                missing.append(f"{path.relative_to(PACKAGE)}:{line}: {found.group(1)}")
    assert missing == []


def _figures(source: str) -> list[int]:
    """Lines of ``source`` whose docstrings or comments carry a measured figure."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(
                node.value.value, str):
            lines += [node.lineno + i for i, line in enumerate(node.value.value.splitlines())
                      if _FIGURE.search(_QUOTED.sub("", line))]
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and _FIGURE.search(_QUOTED.sub("", token.string)):
            lines.append(token.start[0])
    return sorted(lines)


def _checked(*skipped: str) -> list[Path]:
    return [p for p in sorted(PACKAGE.rglob("*.py"))
            if not p.relative_to(PACKAGE).as_posix().startswith(skipped)]


def test_no_module_docstring_runs_past_twelve_lines() -> None:
    long = {}
    for path in _checked():
        doc = ast.get_docstring(ast.parse(path.read_text()), clean=False) or ""
        if len(doc.splitlines()) > MOST_DOC_LINES:
            long[path.relative_to(PACKAGE).as_posix()] = len(doc.splitlines())
    assert long == {}


def test_no_figure_in_a_docstring_or_comment_outside_bench() -> None:
    found = {path.relative_to(PACKAGE).as_posix(): _figures(path.read_text())
             for path in _checked("bench/")}
    assert {path: lines for path, lines in found.items() if lines} == {}


def test_the_figure_finder_sees_docstrings_and_comments_not_literals() -> None:
    source = ('"""Saves 51 ms (paired runs, 2026-12-04)."""\n'
              "X = 1  # about 40% of it\n"
              "def f():\n"
              '    """Parses ``250ms`` and "in 20ms"; 5,000 lines."""\n')
    assert _figures(source) == [1, 2]

"""Docstrings name only what is there: every :mod:`x` and :func:`x` in spark_cli resolves
(relative to the module that names it, or absolute), and so does every dotted
``spark_cli.…`` name in its text, so a module or function that moves or goes cannot leave
a docstring or comment pointing at it."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import spark_cli

PACKAGE = Path(spark_cli.__file__).parent
_ROLE = re.compile(r":(mod|func):`~?([\w.]+)`")
_ABSOLUTE = re.compile(r"(?<![\w.])(spark_cli(?:\.\w+)+)")


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

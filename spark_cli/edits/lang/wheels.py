"""A grammar wheel's compiled binding and tags query, read without running its ``__init__``.

Every ``tree_sitter_<lang>`` wheel's ``__init__`` imports ``importlib.resources`` first,
paid before the request leaves whenever the repo map parses a file. :func:`binding` loads
``<wheel>/_binding.<abi>.so`` as ``<wheel>._binding`` (registered in ``sys.modules``, so a
later ``import <wheel>`` reuses it) and :func:`tags_query` reads
``<wheel>/queries/tags.scm``, straight from the wheel's folder. Anything unusual returns
``None`` and the caller imports the wheel as usual, so the answers never differ
(tests/edits/lang/test_wheels.py compares both for every installed wheel).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
from functools import cache
from types import ModuleType


@cache
def _folder(package: str) -> str | None:
    """The installed wheel's package folder (found without importing it), or None."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return None
    locations = spec.submodule_search_locations if spec is not None else None
    return next(iter(locations), None) if locations else None


def binding(package: str) -> ModuleType | None:
    """``<package>._binding`` loaded from its file, or None (then import the package)."""
    name = f"{package}._binding"
    loaded = sys.modules.get(name)
    if loaded is not None:
        return loaded
    folder = _folder(package)
    if folder is None:
        return None
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, "_binding" + suffix)
        if os.path.isfile(path):
            loader = importlib.machinery.ExtensionFileLoader(name, path)
            spec = importlib.util.spec_from_file_location(name, path, loader=loader)
            if spec is None:
                return None
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            sys.modules[name] = module
            return module
    return None


def tags_query(package: str) -> str | None:
    """The text of ``<package>/queries/tags.scm``, or None (then ask the package)."""
    folder = _folder(package)
    if folder is None:
        return None
    try:
        with open(os.path.join(folder, "queries", "tags.scm"), encoding="utf-8") as f:
            return f.read()
    except OSError:
        return None

"""Stand-in modules in ``sys.modules``, each imported when one of its attributes is first read.

A one-shot's libraries import stdlib modules they use only off its path (``inspect``,
``ipaddress``, ``traceback``; ``urllib.request`` for websockets' proxy settings, which
spark never reads): :func:`defer` registers a stand-in that ``import`` binds as usual and
the first attribute read replaces with the real module (``preset`` names are read
without it). ``importlib.util.LazyLoader`` cannot: Python 3.11 reads ``__spec__`` on the
next import and loads the module. This is the one place spark patches the import system;
kept by the ledger (docs/benchmarks.md): `spark bench oneshot` shows launch -> request,
and ``tests/test_lazy_modules.py`` fails when an upgrade makes a deferral load its module.
Imports nothing of spark, nor ``threading``.
"""

from __future__ import annotations

import _thread
import importlib
import sys
from collections.abc import Mapping
from importlib.machinery import ModuleSpec
from importlib.util import find_spec
from types import ModuleType
from typing import Any

STDLIB_UNUSED = ("inspect", "ipaddress", "traceback")
"""Imported on the way to a one-shot's request and not used there: ``inspect`` by
dataclasses (only for a dataclass without a docstring), ``ipaddress`` by urllib.parse
(only for a bracketed host), ``traceback`` by logging (only to format an exception)."""

_swap = _thread.RLock()
"""Held while a stand-in gives way to its module, so two threads never both import it."""


class _Deferred(ModuleType):
    """Stands in for a module not imported yet; any attribute read imports it."""

    def __getattr__(self, attr: str) -> Any:
        spec = self.__spec__
        if attr == "__path__" and spec is not None and spec.submodule_search_locations is None:
            # what ``from module import name`` asks first: a plain module has none
            raise AttributeError(attr)
        name = self.__name__
        with _swap:
            if sys.modules.get(name) is self:
                del sys.modules[name]
                real = importlib.import_module(name)
                own = self.__dict__
                own.update({k: v for k, v in real.__dict__.items() if k not in own})
        return getattr(importlib.import_module(name), attr)


def defer(name: str, preset: Mapping[str, object] | None = None) -> bool:
    """Register a stand-in for the module ``name`` (its parent package is imported now),
    holding the names in ``preset`` already; False, and nothing done, when it is imported
    already or cannot be found (an import of it then fails as it would have)."""
    if name in sys.modules:
        return False
    try:
        spec = find_spec(name)  # imports the parent package
    except (ImportError, ValueError):
        return False
    if spec is None:
        return False
    stand_in = _Deferred(name)
    stand_in.__dict__.update(preset or {})
    # not "initializing": imports bind it as is
    stand_in.__spec__ = ModuleSpec(name, None,
                                   is_package=spec.submodule_search_locations is not None)
    sys.modules[name] = stand_in
    parent, _, child = name.rpartition(".")
    if parent:
        setattr(sys.modules[parent], child, stand_in)
    return True


def defer_stdlib() -> None:
    """Defer :data:`STDLIB_UNUSED` (for `spark edit`, before anything imports them)."""
    for name in STDLIB_UNUSED:
        defer(name)

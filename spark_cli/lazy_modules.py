"""A module registered now and imported when one of its attributes is first read.

``websockets.asyncio.client`` imports ``websockets.proxy``, which imports
``urllib.request`` (with ``http.client``, ``email``, ``tempfile``, ``shutil``,
``bz2``, ``lzma``: ~13 M instructions, ~10 ms) and uses it only to read the
proxy settings of the environment, which spark never asks for (it connects
with ``proxy=None``). :func:`defer` registers a stand-in for such a module:
``import urllib.request`` finds it and binds it as usual, and the first read
of any of its attributes (``urllib.request.getproxies``, ``from urllib.request
import Request``) imports the real module, which then replaces the stand-in in
``sys.modules`` and on its parent package. So code that uses the module gets
it, code that only imports it pays nothing.

A stand-in may hold some names from the start (``preset``: values equal to the
module's own, for code that reads only those before the module is needed), which
are read without importing it, ``from module import name`` included.

Once loaded, the stand-in takes a copy of the module's names, so code that
bound the stand-in (``import inspect`` before anything read it) reads them as
plainly as from the module itself, without a lookup per read.

``importlib.util.LazyLoader`` does not do this on Python 3.11: the import
system reads the module's ``__spec__`` when it is imported again, which loads
it at once. Imports nothing of spark, nor ``threading`` (~1.5 ms).

Saves 13-23 ms of the bundled tiny edit and 4-15 ms of launch → request on the
WebSocket (paired runs, 2026-12-04; docs/benchmarks.md, Ledger); `spark bench oneshot`
shows both.
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

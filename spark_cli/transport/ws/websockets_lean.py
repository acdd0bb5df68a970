"""websockets, imported without ``importlib.metadata``.

``websockets/version.py`` starts with ``import importlib.metadata`` (which pulls
in email, zipfile, csv, ...: ~30 M instructions, ~7 ms) and, in a released
version, never uses it: ``tag = version = commit = "X.Y"``. Before websockets is
first imported, :func:`prepare` registers a ready ``websockets.version`` module
with the same three names, the version read from the installed distribution's
``websockets-X.Y.dist-info`` folder name (what ``importlib.metadata.version``
would answer). When that folder cannot be found, nothing is registered and
websockets imports as usual.

``websockets.asyncio.client`` also imports ``websockets.proxy``, which imports
``urllib.request`` (~13 M instructions) to read proxy settings spark never asks
for (it connects with ``proxy=None``): :func:`prepare` defers that module
(:mod:`spark_cli.lazy_modules`), so only code that uses it imports it.

Saves 38-50 ms of launch → request on the Responses WebSocket (paired runs,
2026-12-04; docs/benchmarks.md, Ledger); `spark bench oneshot` shows the path.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import NewType

from spark_cli.lazy_modules import defer

TYPING_PRESET: dict[str, object] = {
    "BytesLike": bytes | bytearray | memoryview,
    "ExtensionName": NewType("ExtensionName", str),
    "ExtensionParameter": tuple[str, str | None],
}
"""What ``websockets.frames``, ``.utils`` and ``.extensions.base`` import from
``websockets.typing``, as it defines them."""
_PREFIX = "websockets-"
_SUFFIX = ".dist-info"


def prepare() -> None:
    """Register ``websockets.version`` if websockets is not imported yet, and defer
    ``urllib.request`` and ``websockets.typing`` (idempotent)."""
    defer("urllib.request")  # websockets' client imports it for proxies; ours has proxy=None
    if "websockets" in sys.modules or "websockets.version" in sys.modules:
        return
    version = installed_version()
    if version is None:
        return
    module = ModuleType("websockets.version")
    module.__dict__.update(tag=version, version=version, commit=version, released=True)
    sys.modules["websockets.version"] = module
    defer("websockets.typing", TYPING_PRESET)  # imports the websockets package (it is lazy)


def installed_version() -> str | None:
    """``X.Y`` from the ``websockets-X.Y.dist-info`` beside the websockets package."""
    import os
    from importlib.util import find_spec

    spec = find_spec("websockets")
    if spec is None or not spec.submodule_search_locations:
        return None
    site = os.path.dirname(next(iter(spec.submodule_search_locations)))
    try:
        names = os.listdir(site)
    except OSError:
        return None
    found = [n[len(_PREFIX):-len(_SUFFIX)] for n in names
             if n.startswith(_PREFIX) and n.endswith(_SUFFIX)]
    return found[0] if len(found) == 1 else None

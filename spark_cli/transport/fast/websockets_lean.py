"""websockets, imported without ``importlib.metadata``.

``websockets/version.py`` imports ``importlib.metadata`` (email, zipfile, csv, ...) and,
in a released version, never uses it. Before websockets is first imported,
:func:`prepare` registers a ready ``websockets.version`` with the version read from the
installed ``websockets-X.Y.dist-info`` folder (else websockets imports as usual), and
defers ``urllib.request``, which ``websockets.proxy`` imports to read proxy settings spark
never asks for (:mod:`spark_cli.lazy_modules`). Kept by the ledger (docs/benchmarks.md);
`spark bench oneshot` shows launch -> request on the WebSocket.
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
    import os  # deferred: launch -> request
    from importlib.util import find_spec  # deferred: launch -> request

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

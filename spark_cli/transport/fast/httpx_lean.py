"""httpx, imported without its command-line tool.

``httpx/__init__.py`` ends with ``from ._main import main``: its CLI, which imports rich,
click and pygments whenever they are installed. While httpx is imported, ``httpx._main``
is made to fail (a ``None`` in ``sys.modules``, as the import system documents), so httpx
takes its own fallback; the block is lifted right after. The client seam
(:mod:`spark_cli.transport.http_route`) has it done before httpx's users (the HTTP
channels' httpx path, the window probe) import it. Its saving: docs/benchmarks.md
``## Ledger`` (``httpx_lean``); paired: `spark bench oneshot --no-docs` with
``SPARK_PLAIN=h11,httpx_lean`` and with ``SPARK_PLAIN=h11``.
"""

from __future__ import annotations

import sys


def prepare() -> None:
    """Import httpx without its CLI (idempotent)."""
    if "httpx" in sys.modules or "httpx._main" in sys.modules:
        return
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # blocks one import (documented)
    try:
        import httpx  # noqa: F401  # deferred: launch -> request
    finally:
        del sys.modules["httpx._main"]

"""httpx, imported without its CLI (``httpx._main`` pulls in rich, click and pygments).

Its saving: docs/benchmarks.md ``## Ledger`` (``httpx_lean``); paired: `spark bench oneshot
--no-docs` with ``SPARK_PLAIN=h11,httpx_lean`` and with ``SPARK_PLAIN=h11``."""

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

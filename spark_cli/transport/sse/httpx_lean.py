"""httpx, imported without its command-line tool.

``httpx/__init__.py`` ends with ``from ._main import main``: its CLI, which
imports rich, click and pygments whenever they are installed (they are, with
typer and textual). That is ~200 M instructions, 50-75 ms, on the HTTP
channels' way to the request, for a tool spark never runs. While httpx itself
is imported, ``httpx._main`` is made to fail (a ``None`` in ``sys.modules``
raises ImportError), so httpx takes its own fallback (a ``main`` that says to
install ``httpx[cli]``); the block is lifted right after, so nothing else is
affected. The HTTP channels import httpx from here.

Saves 62 ms of CPU per Chat one-shot on the httpx path (https providers; paired runs,
2026-12-04; docs/benchmarks.md, Ledger); `spark bench oneshot --provider NAME` shows
the path.
"""

from __future__ import annotations

import sys

__all__ = ["httpx"]

if "httpx" not in sys.modules and "httpx._main" not in sys.modules:
    sys.modules["httpx._main"] = None  # type: ignore[assignment]  # None blocks one import (documented)
    try:
        import httpx
    finally:
        del sys.modules["httpx._main"]
else:
    import httpx

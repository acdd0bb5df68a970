"""httpx, imported without its command-line tool.

``httpx/__init__.py`` ends with ``from ._main import main``: its CLI, which imports rich,
click and pygments whenever they are installed, on the HTTP channels' way to the request.
While httpx is imported, ``httpx._main`` is made to fail (a ``None`` in ``sys.modules``),
so httpx takes its own fallback; the block is lifted right after. The HTTP channels import
httpx from here. Kept by the ledger (docs/benchmarks.md); `spark bench oneshot --provider
NAME` shows the path.
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

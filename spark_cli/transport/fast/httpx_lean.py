"""httpx, imported without its command-line tool.

``httpx/__init__.py`` ends with ``from ._main import main``: its CLI, which imports rich,
click and pygments whenever they are installed. While httpx is imported, ``httpx._main``
is made to fail (a ``None`` in ``sys.modules``, as the import system documents), so httpx
takes its own fallback; the block is lifted right after. Every user of httpx imports it
from here: the HTTP channels' httpx path and the window probe. Kept by the ledger
(docs/benchmarks.md); `spark bench oneshot` shows the path.
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

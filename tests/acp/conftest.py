"""ACP tests import the SDK client from ``acp_client.py`` and the scripted channel from
``tests/session/session_fakes.py``."""

from __future__ import annotations

import sys
from pathlib import Path

for _dir in (Path(__file__).parent, Path(__file__).parents[1] / "session"):
    if str(_dir) not in sys.path:
        sys.path.insert(0, str(_dir))

"""How many frames a websockets connection has received and not yet handed out.

websockets' asyncio connection queues the frames it parsed in its message
assembler (``recv_messages.frames``, websockets 13-17); while that queue is not
empty, ``recv()`` returns without waiting. The read loop merges the text of
those frames (:mod:`spark_cli.transport.text_merge`) and yields it before a
``recv()`` that would wait. Not part of websockets' documented API: where the
attribute is missing this answers 0 and every delta travels alone.
"""

from __future__ import annotations

from collections.abc import Callable


def _none() -> int:
    return 0


def queued_frames(ws: object) -> Callable[[], int]:
    """A cheap count of the frames ``ws`` holds, ready for ``recv()`` (0 if unknown)."""
    frames = getattr(getattr(ws, "recv_messages", None), "frames", None)
    count = getattr(frames, "__len__", None)
    if count is None:
        return _none
    try:
        value = count()
    except Exception:
        return _none
    return count if type(value) is int else _none

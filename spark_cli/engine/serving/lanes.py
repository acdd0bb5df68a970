"""Connection-local conversation state: lanes, chaining and the ids a connection knows.

A lane is a ``stream_id`` (``None`` = the default lane): its requests run in order (one
worker task while it has work), lanes in parallel, and at most
:data:`LANE_PENDING_LIMIT` wait behind its running one (more get 429). Chaining is
connection-local: ``previous_response_id`` must name a response this connection still
remembers (the latest of a recent lane, or a recent ``store: true`` one), else
``previous_response_not_found`` (the client replays its context, as after a reconnect).
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from spark_cli.engine.brains.base import BrainTurn
from spark_cli.engine.wire.responses import CreateRequest, WireError
from spark_cli.engine.wire.wire_errors import too_many_requests

Conversation = tuple[BrainTurn, ...]
FINISHED_LIMIT = 4096
"""Finished ids remembered for ``response_already_completed`` answers."""
LANE_PENDING_LIMIT = 32
"""Requests that may wait behind a lane's running response; more get 429."""
LANE_MEMORY = 256
"""Lanes whose latest response a connection remembers for chaining (least recent go)."""
STORED_LIMIT = 256
"""``store: true`` responses a connection remembers (oldest go)."""


def _queue() -> asyncio.Queue[CreateRequest]:
    return asyncio.Queue(maxsize=LANE_PENDING_LIMIT)


@dataclass(slots=True)
class Lane:
    """One lane of a connection: its waiting requests and the task working through them."""

    stream_id: str | None
    requests: asyncio.Queue[CreateRequest] = field(default_factory=_queue)
    worker: asyncio.Task[None] | None = None


class Memory:
    """What a connection remembers between responses (bounded)."""

    def __init__(self) -> None:
        self.conversations: dict[str, Conversation] = {}
        self.latest: OrderedDict[str | None, str] = OrderedDict()
        """Lane -> its latest response id, least recently used first."""
        self.stored: OrderedDict[str, None] = OrderedDict()
        self.finished: OrderedDict[str, str | None] = OrderedDict()
        """Finished response id -> its lane's stream_id."""

    def resolve(self, previous_id: str | None) -> Conversation | None:
        """The conversation to continue (``()`` for none); None = unknown id."""
        if previous_id is None:
            return ()
        return self.conversations.get(previous_id)

    def _forget(self, response_id: str) -> None:
        if response_id not in self.stored and response_id not in self.latest.values():
            self.conversations.pop(response_id, None)

    def remember(
        self, stream_id: str | None, response_id: str, conversation: Conversation, *,
        store: bool,
    ) -> None:
        """``response_id`` is now its lane's latest; the previous latest is forgotten
        unless it was stored."""
        old = self.latest.pop(stream_id, None)
        self.latest[stream_id] = response_id
        self.conversations[response_id] = conversation
        if store:
            self.stored[response_id] = None
        if old is not None and old != response_id:
            self._forget(old)
        while len(self.latest) > LANE_MEMORY:
            self._forget(self.latest.popitem(last=False)[1])
        while len(self.stored) > STORED_LIMIT:
            self._forget(self.stored.popitem(last=False)[0])

    def finish(self, response_id: str, stream_id: str | None) -> None:
        self.finished[response_id] = stream_id
        while len(self.finished) > FINISHED_LIMIT:
            self.finished.popitem(last=False)


def lane_full_error(stream_id: str | None) -> WireError:
    """429 for a request beyond :data:`LANE_PENDING_LIMIT` waiting on one lane."""
    lane = "the default lane" if stream_id is None else f"lane {stream_id[:60]!r}"
    return too_many_requests(f"{lane} already has {LANE_PENDING_LIMIT} requests waiting; wait "
                             "for its responses or use another stream_id", LANE_PENDING_LIMIT)

"""Connection-local conversation state: lanes, chaining and the ids a connection knows.

A lane is a ``stream_id`` (``None`` = the default lane). Requests on one lane
run in order (one worker task per lane); lanes run in parallel. Chaining is
connection-local: ``previous_response_id`` must name a response this
connection produced that is still remembered — the latest response of a lane,
or any ``store: true`` response — else ``previous_response_not_found``.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field

from spark_cli.engine.brains.base import BrainTurn
from spark_cli.protocol.responses import CreateRequest, InputMessage

Conversation = tuple[BrainTurn, ...]
FINISHED_LIMIT = 4096
"""Finished ids remembered for ``response_already_completed`` answers."""


@dataclass
class Lane:
    stream_id: str | None
    requests: asyncio.Queue[CreateRequest] = field(default_factory=asyncio.Queue)
    worker: asyncio.Task[None] | None = None
    latest_id: str | None = None


class Memory:
    """What a connection remembers between responses."""

    def __init__(self) -> None:
        self.conversations: dict[str, Conversation] = {}
        self.stored: set[str] = set()
        self.finished: OrderedDict[str, str | None] = OrderedDict()
        """Finished response id -> its lane's stream_id."""

    def resolve(self, previous_id: str | None) -> Conversation | None:
        """The conversation to continue (``()`` for none); None = unknown id."""
        if previous_id is None:
            return ()
        return self.conversations.get(previous_id)

    def remember(
        self, lane: Lane, response_id: str, conversation: Conversation, *, store: bool
    ) -> None:
        """``response_id`` is now the lane's latest; the previous latest is forgotten
        unless it was stored."""
        old = lane.latest_id
        if old is not None and old not in self.stored and old != response_id:
            self.conversations.pop(old, None)
        lane.latest_id = response_id
        self.conversations[response_id] = conversation
        if store:
            self.stored.add(response_id)

    def finish(self, response_id: str, stream_id: str | None) -> None:
        self.finished[response_id] = stream_id
        while len(self.finished) > FINISHED_LIMIT:
            self.finished.popitem(last=False)


def turns(messages: tuple[InputMessage, ...]) -> Conversation:
    return tuple(BrainTurn(m.role, m.text) for m in messages)

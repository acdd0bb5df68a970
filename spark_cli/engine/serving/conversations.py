"""Conversations on the serving side: a request's items as the brain's turns, and what a
connection remembers (per lane, a ``stream_id``) for chaining."""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

from spark_cli.engine.brains.base import (
    CALL,
    OUTPUT,
    BrainRequest,
    BrainTurn,
    edit_format_from_instructions,
)
from spark_cli.engine.core.state import Conversation
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.responses import (
    CreateRequest,
    InputCall,
    InputItem,
    InputMessage,
    WireError,
)
from spark_cli.engine.wire.wire_errors import INVALID_VALUE, too_many_requests

FINISHED_LIMIT = 4096
"""Finished ids remembered for ``response_already_completed`` answers."""
LANE_PENDING_LIMIT = 32
"""Requests that may wait behind a lane's running response; more get 429."""
LANE_MEMORY = 256
"""Lanes whose latest response a connection remembers for chaining (least recent go)."""
STORED_LIMIT = 256
"""``store: true`` responses a connection remembers (oldest go)."""


@dataclass(slots=True)
class Lane:
    """One lane of a connection: its waiting requests and the task working through them."""

    stream_id: str | None
    requests: asyncio.Queue[tuple[CreateRequest, int]] = field(
        default_factory=lambda: asyncio.Queue(maxsize=LANE_PENDING_LIMIT))
    """Each with the connection's count of bare ``response.cancel`` frames when it came."""
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

    def _forget(self, response_id: str) -> None:
        if response_id not in self.stored and response_id not in self.latest.values():
            self.conversations.pop(response_id, None)

    def remember(
        self, stream_id: str | None, response_id: str, conversation: Conversation, *,
        store: bool,
    ) -> None:
        """``response_id`` is now its lane's latest (the previous is forgotten unless stored)."""
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


def _turn(item: InputItem) -> BrainTurn:
    if isinstance(item, InputMessage):
        return BrainTurn(item.role, item.text)
    if isinstance(item, InputCall):
        return BrainTurn(CALL, item.arguments, item.call_id, item.name)
    return BrainTurn(OUTPUT, item.output, item.call_id)


def turns(items: tuple[InputItem, ...]) -> Conversation:
    """Request items as the brains' turns (calls and outputs keep their ``call_id``)."""
    return tuple(_turn(item) for item in items)


def answered(conversation: Conversation, text: str, calls: tuple[InputCall, ...]) -> Conversation:
    """The conversation after a response (its text, then its calls)."""
    after = conversation
    if text or not calls:
        after = (*after, BrainTurn("assistant", text))
    return after + turns(calls)


def continued(known: Mapping[str, Conversation], request: CreateRequest) -> Conversation:
    """The conversation a ``response.create`` continues (400 when it cannot)."""
    previous = request.previous_response_id
    history = () if previous is None else known.get(previous)
    if history is None:
        raise WireError(400, wire.PREVIOUS_RESPONSE_NOT_FOUND,
                        f"Previous response with id '{previous}' not found.",
                        "previous_response_id")
    conversation = history + turns(request.input)
    called: set[str] = set()
    for turn in conversation:
        if turn.role == CALL:
            called.add(turn.call_id)
        elif turn.role == OUTPUT and turn.call_id not in called:
            raise WireError(400, INVALID_VALUE, "No tool call found for function call "
                            f"output with call_id {turn.call_id[:100]}.", "input")
    return conversation



def brain_request(request: CreateRequest, conversation: Conversation,
                  slips: float = 0.0) -> BrainRequest:
    """The brain's request for ``request`` over ``conversation``."""
    return BrainRequest(
        model=request.model, instructions=request.instructions, conversation=conversation,
        edit_format=edit_format_from_instructions(request.instructions),
        tools=frozenset(t.name for t in request.tools if request.tool_choice.allows(t.name)),
        parallel_tool_calls=request.parallel_tool_calls, seed=request.seed, slips=slips,
    )

"""Tool calls in a Chat Completions stream: ``delta.tool_calls`` pieces joined into calls,
opened once the name is known, completed when the choice finishes, in index order."""

from __future__ import annotations

import itertools
from typing import Any

from spark_cli.protocol.channel import ChannelEvent, ToolCall, ToolCallCompleted, ToolCallOpened
from spark_cli.transport.arguments import join_arguments

_MADE_IDS = itertools.count(1)
"""Ids made for calls a server sent without one: unique in this process."""


class _Building:
    """One call while its pieces arrive (mutable)."""

    __slots__ = ("name", "order", "pieces", "reported", "server_id", "started")

    def __init__(self, order: int, server_id: str | None) -> None:
        self.order = order
        self.server_id = server_id
        self.reported: str | None = None
        """The id the call was reported under (fixed once reported)."""
        self.name: str | None = None
        self.pieces: list[str] = []
        self.started = False


class ChatCalls:
    """The tool calls of one response, however the server numbers and splits them.

    A piece without an index continues the last call unless its id or name says new; an index
    reused with another id is a new call; a call without an id gets ``call_<n>``."""

    __slots__ = ("_by_index", "_calls", "_finished", "_last")

    def __init__(self) -> None:
        self._calls: list[_Building] = []
        self._by_index: dict[int, _Building] = {}
        self._last: _Building | None = None
        self._finished = False

    def __bool__(self) -> bool:
        """Any call was streamed."""
        return bool(self._calls)

    def feed(self, pieces: object) -> list[ChannelEvent]:
        """One chunk's ``delta.tool_calls``: the calls whose name just became known."""
        started: list[ChannelEvent] = []
        if type(pieces) is not list or self._finished:
            return started
        for piece in pieces:
            if type(piece) is not dict:
                continue
            call = self._call_for(piece)
            function = piece.get("function")
            if type(function) is dict:
                name = function.get("name")
                if call.name is None and type(name) is str and name:
                    call.name = name
                arguments = function.get("arguments")
                if type(arguments) is str and arguments:
                    call.pieces.append(arguments)
            if not call.started and call.name is not None:
                call.started = True
                started.append(ToolCallOpened(self._id(call), call.name))
        return started

    def finish(self) -> list[ChannelEvent]:
        """The choice finished: every call, complete, in index order (once)."""
        if self._finished:
            return []
        self._finished = True
        made: list[ChannelEvent] = []
        for call in sorted(self._calls, key=lambda c: c.order):
            name = call.name or ""  # a call without a name: the session answers it as unknown
            call_id = self._id(call)
            if not call.started:
                made.append(ToolCallOpened(call_id, name))
            made.append(ToolCallCompleted(ToolCall(call_id, name, join_arguments(call.pieces))))
        return made

    def _call_for(self, piece: dict[str, Any]) -> _Building:
        """The call a piece belongs to (a new one where it starts one)."""
        index = piece.get("index")
        call_id = piece.get("id")
        call_id = call_id if type(call_id) is str and call_id else None
        if type(index) is int:
            call = self._by_index.get(index)
            if call is None:
                return self._new(index, call_id)
        else:
            call = self._last
            if call is not None and call_id is None and call.name is not None and _named(piece):
                call = None  # a name again without index or id: the next whole call
        if call is not None and (call_id is None or call.server_id in (None, call_id)):
            call.server_id = call.server_id or call_id
            self._last = call
            return call
        # a new id without an index, or an index another call has: a call after the others
        return self._new(max(self._by_index, default=-1) + 1, call_id)

    def _new(self, index: int, server_id: str | None) -> _Building:
        call = _Building(index, server_id)
        self._calls.append(call)
        self._by_index[index] = call
        self._last = call
        return call

    @staticmethod
    def _id(call: _Building) -> str:
        """The call's id: the server's, else one made; the same every time it is asked."""
        if call.reported is None:
            call.reported = call.server_id or f"call_{next(_MADE_IDS)}"
        return call.reported


def _named(piece: dict[str, Any]) -> bool:
    function = piece.get("function")
    return type(function) is dict and type(function.get("name")) is str and bool(function["name"])

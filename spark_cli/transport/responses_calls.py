"""Function calls in a Responses stream: items opened, argument pieces joined, each call once;
an item that ends ``incomplete`` (cut short) is counted as unfinished, never completed."""

from __future__ import annotations

from typing import Any

from spark_cli.protocol.channel import ChannelEvent, ToolCall, ToolCallCompleted, ToolCallOpened
from spark_cli.transport.arguments import join_arguments

FUNCTION_CALL = "function_call"


class _Open:
    """One call item being streamed (mutable: its argument pieces grow)."""

    __slots__ = ("call_id", "done", "item_id", "name", "pieces", "started")

    def __init__(self, item_id: str | None, call_id: str | None, name: str | None) -> None:
        self.item_id = item_id
        self.call_id = call_id
        self.name = name
        self.pieces: list[str] = []
        self.started = False
        self.done = False
        """Completed, or given up (an incomplete item): nothing more is made for it."""


class ResponsesCalls:
    """The function calls of one turn's responses, as they stream.

    A call opens at ``output_item.added``, gathers ``function_call_arguments.delta`` pieces, and
    completes once at ``arguments.done`` or ``output_item.done``, whichever comes first. Calls only
    in a final response's ``output`` complete there, each after its own ``ToolCallOpened``."""

    __slots__ = ("_by_index", "_by_item", "completed", "started")

    def __init__(self) -> None:
        self._by_item: dict[str, _Open] = {}
        self._by_index: dict[int, _Open] = {}
        self.completed: list[ToolCall] = []
        """The calls completed so far, in the order they were reported."""
        self.started = 0
        """Calls reported started (output has begun once this is not 0)."""

    @property
    def unfinished(self) -> bool:
        """A call was started and never completed (cut short, or its end never came)."""
        return self.started > len(self.completed)

    def next_response(self) -> None:
        """A new response of the turn begins (a steer's successor): output indexes restart."""
        self._by_index.clear()

    # ---- server events ----

    def added(self, event: dict[str, Any]) -> ChannelEvent | None:
        """``response.output_item.added``: a function call item opens."""
        item = event.get("item")
        if type(item) is not dict or item.get("type") != FUNCTION_CALL:
            return None
        entry = self._entry(_text(item.get("id")), event.get("output_index"))
        entry.call_id = entry.call_id or _text(item.get("call_id"))
        entry.name = entry.name or _text(item.get("name"))
        arguments = item.get("arguments")
        if type(arguments) is str and arguments and not entry.pieces:
            entry.pieces.append(arguments)
        return self._start(entry)

    def delta(self, event: dict[str, Any]) -> None:
        """``response.function_call_arguments.delta``: one more piece of a call's arguments."""
        piece = event.get("delta")
        if type(piece) is str:
            entry = self._entry(_text(event.get("item_id")), event.get("output_index"))
            if not entry.done:
                entry.pieces.append(piece)

    def arguments_done(self, event: dict[str, Any]) -> tuple[ChannelEvent, ...]:
        """``response.function_call_arguments.done``: the call's whole arguments."""
        entry = self._entry(_text(event.get("item_id")), event.get("output_index"))
        entry.name = entry.name or _text(event.get("name"))
        return self._complete(entry, event.get("arguments"))

    def item_done(self, event: dict[str, Any]) -> tuple[ChannelEvent, ...]:
        """``response.output_item.done``: the whole item (a call completes here if not yet)."""
        item = event.get("item")
        if type(item) is not dict or item.get("type") != FUNCTION_CALL:
            return ()
        return self._item(item, event.get("output_index"))

    def final(self, output: object) -> tuple[ChannelEvent, ...]:
        """The calls a final response's ``output`` holds that were never completed."""
        if type(output) is not list:
            return ()
        made: list[ChannelEvent] = []
        for index, item in enumerate(output):
            if type(item) is dict and item.get("type") == FUNCTION_CALL:
                made += self._item(item, index)
        return tuple(made)

    # ---- helpers ----

    def _item(self, item: dict[str, Any], index: object) -> tuple[ChannelEvent, ...]:
        call_id = _text(item.get("call_id"))
        if call_id is not None and any(c.call_id == call_id for c in self.completed):
            return ()
        entry = self._entry(_text(item.get("id")), index)
        entry.call_id = entry.call_id or call_id
        entry.name = entry.name or _text(item.get("name"))
        if item.get("status") == "incomplete":
            entry.done = True  # its arguments were cut short: never run
            return ()
        return self._complete(entry, item.get("arguments"))

    def _entry(self, item_id: str | None, index: object) -> _Open:
        """The call an event is about: by item id, else output index, else a new one."""
        entry = self._by_item.get(item_id) if item_id is not None else None
        if entry is None and type(index) is int:
            entry = self._by_index.get(index)
        if entry is None:
            entry = _Open(item_id, None, None)
            if item_id is not None:
                self._by_item[item_id] = entry
            if type(index) is int:
                self._by_index[index] = entry
        return entry

    def _start(self, entry: _Open) -> ToolCallOpened | None:
        if entry.started or entry.done or entry.call_id is None or entry.name is None:
            return None
        entry.started = True
        self.started += 1
        return ToolCallOpened(entry.call_id, entry.name)

    def _complete(self, entry: _Open, arguments: object) -> tuple[ChannelEvent, ...]:
        if entry.done:
            return ()
        if type(arguments) is str:
            entry.pieces = [arguments]  # the whole text: it wins over the pieces
        if entry.call_id is None or entry.name is None:
            return ()  # not enough to answer it yet: the item's end says the rest
        started = self._start(entry)
        entry.done = True
        call = ToolCall(entry.call_id, entry.name, join_arguments(entry.pieces), entry.item_id)
        self.completed.append(call)
        completed = ToolCallCompleted(call)
        return (started, completed) if started is not None else (completed,)


def _text(value: object) -> str | None:
    return value if type(value) is str and value else None

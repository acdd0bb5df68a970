"""Folding OpenAI Responses stream events (WebSocket frames or SSE data) into channel events;
:func:`chain_after`: what a WebSocket connection holds once a response ended."""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any

from spark_cli.protocol.channel import (
    ChannelError,
    ChannelEvent,
    ConversationItem,
    Message,
    Queued,
    ResponseStarted,
    SteerAccepted,
    Steered,
    SteerRejected,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.secrets import NO_SECRETS, Secrets
from spark_cli.transport.errors import provider_error
from spark_cli.transport.reading import first_and_more
from spark_cli.transport.responses_calls import ResponsesCalls
from spark_cli.transport.ws_wire import Chain

STEERED = "steered"


class ResponsesFold:
    """The state of one turn while its events arrive (the text delta is the first branch)."""

    __slots__ = (
        "_secrets",
        "_successor_pending",
        "_tools",
        "calls",
        "deltas",
        "earlier_texts",
        "finished",
        "more",
        "parts",
        "response_id",
        "steers_pending",
        "tentative",
        "usage",
    )

    def __init__(self, secrets: Secrets = NO_SECRETS, *, tools: bool = False) -> None:
        self._secrets = secrets
        self._tools = tools
        """The request declared tools (a 400 about them means the model cannot call any)."""
        self._successor_pending = False
        self.deltas = 0
        self.calls = ResponsesCalls()
        self.more: tuple[ChannelEvent, ...] = ()
        self.parts: list[str] = []
        self.earlier_texts: list[str] = []
        """Output texts of responses this turn that ended for a steer."""
        self.response_id: str | None = None
        self.finished: TurnFinished | None = None
        self.usage: UsageReported | None = None
        self.steers_pending = 0
        """Steers accepted whose successor response has not started yet."""
        self.tentative: TurnFinished | None = None

    def feed(self, event: Any) -> ChannelEvent | None:
        """The channel event for one decoded server event, if it makes one."""
        if type(event) is not dict:
            raise ChannelError("protocol", f"malformed event from the server: {_short(event)}")
        kind = event.get("type")
        if kind == "response.output_text.delta":
            delta = event.get("delta")
            if type(delta) is not str:
                raise ChannelError("protocol", f"text delta without text: {_short(event)}")
            self.parts.append(delta)
            self.deltas += 1
            return TextDelta(delta)
        if type(kind) is not str:
            raise ChannelError("protocol", f"event without a type: {_short(event)}")
        if kind == "response.function_call_arguments.delta":
            self.calls.delta(event)
            return None
        if kind == "response.created":
            return self._created(event)
        if kind in _TERMINAL:
            return self._terminal(kind, event)
        if kind == "response.queued":
            position = event.get("position")
            return Queued(position) if type(position) is int else None
        if kind == "response.steer.accepted":
            self.steers_pending += 1
            return SteerAccepted()
        if kind == "response.steer.failed":
            inner = event.get("error")
            error: dict[str, Any] = inner if isinstance(inner, dict) else event
            return SteerRejected(str(error.get("code") or ""),
                                 self._secrets.mask(str(error.get("message") or "")))
        if kind == "response.output_item.added":
            started = self.calls.added(event)
            if started is not None:
                self.deltas += 1
            return started
        if kind == "response.function_call_arguments.done":
            return first_and_more(self, self.calls.arguments_done(event))
        if kind == "response.output_item.done":
            return first_and_more(self, self.calls.item_done(event))
        if kind == "error":
            raise self.error(event)
        return None

    def error(self, event: dict[str, Any]) -> ChannelError:
        """The ProviderError an ``error`` event stands for."""
        error = event.get("error")
        error = error if isinstance(error, dict) else {"message": str(error or "")}
        status = event.get("status", event.get("status_code"))
        headers = error.get("headers") or event.get("headers")
        return provider_error(
            status if type(status) is int else None,
            error,
            headers=headers if isinstance(headers, dict) else None,
            secrets=self._secrets,
            tools=self._tools,
        )

    @property
    def text(self) -> str:
        return "".join(self.parts)

    @property
    def chars(self) -> int:
        """Characters of output so far, every response of the turn (for error messages)."""
        return sum(map(len, self.parts)) + sum(map(len, self.earlier_texts))

    def _created(self, event: dict[str, Any]) -> ChannelEvent:
        new_id = _response_id(event)
        if self._successor_pending or self.response_id is not None:
            previous = self.response_id
            self._successor_pending = False
            self.steers_pending = 0  # one successor carries every steer accepted so far
            self.tentative = None
            self.earlier_texts.append("".join(self.parts))
            self.parts = []
            self.calls.next_response()
            self.response_id = new_id
            return Steered(previous, new_id)
        self.response_id = new_id
        return ResponseStarted(new_id, time.perf_counter())

    def _terminal(self, kind: str, event: dict[str, Any]) -> ChannelEvent | None:
        response = event.get("response")
        response = response if isinstance(response, dict) else {}
        if self.response_id is None:
            self.response_id = response.get("id") if isinstance(response.get("id"), str) else None
        usage = response.get("usage")
        if isinstance(usage, dict):
            details = usage.get("input_tokens_details")
            self.usage = UsageReported(
                _int(usage.get("input_tokens")), _int(usage.get("output_tokens")),
                cached_tokens=_int(details.get("cached_tokens")) if isinstance(details, dict)
                else 0)
        if kind == "response.completed":
            finished = TurnFinished("completed", None, self.response_id)
        elif kind == "response.incomplete":
            details = response.get("incomplete_details")
            reason = details.get("reason") if isinstance(details, dict) else None
            reason = reason if isinstance(reason, str) else None
            finished = TurnFinished("incomplete", reason, self.response_id)
            if reason == STEERED:
                self._successor_pending = True
                return None
        else:
            error = response.get("error")
            message = error.get("message") if isinstance(error, dict) else None
            message = message if isinstance(message, str) else "the response failed"
            self.finished = TurnFinished("failed", self._secrets.mask(message), self.response_id)
            return self.finished
        if self.steers_pending:
            # the response reached its end before the steer's cut: the successor follows
            self._successor_pending = True
            self.tentative = finished
            return None
        self.finished = finished
        return first_and_more(self, (*self.calls.final(response.get("output")), finished))


_TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


def _response_id(event: dict[str, Any]) -> str | None:
    response = event.get("response")
    rid = response.get("id") if isinstance(response, dict) else None
    return rid if isinstance(rid, str) else None


def _int(value: object) -> int:
    return value if type(value) is int else 0


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def chain_after(request: TurnRequest, fold: ResponsesFold, steers: Sequence[str]) -> Chain | None:
    """What the server holds once this turn's response ended (None: nothing to continue).

    Not after a call that never completed nor after calls in a steered turn: the server's
    conversation would not be the caller's."""
    finished = fold.finished
    if (
        finished is None
        or finished.status not in ("completed", "incomplete")
        or fold.response_id is None
        or len(fold.earlier_texts) != len(steers)
    ):
        return None
    calls = fold.calls
    covered: list[ConversationItem] = list(request.messages)
    if calls.started:
        if calls.unfinished or steers:
            return None
        text = fold.text
        if text:
            covered.append(Message("assistant", text))
        covered += calls.completed
        return Chain(fold.response_id, tuple(covered))
    for earlier, steer in zip(fold.earlier_texts, steers, strict=True):
        covered.append(Message("assistant", earlier))
        covered.append(Message("user", steer))
    covered.append(Message("assistant", fold.text))
    return Chain(fold.response_id, tuple(covered))

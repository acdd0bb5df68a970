"""``previous_response_id`` chaining on the Responses WebSocket: what a turn must send.

The server keeps the latest response of a connection (``store: false``). A
turn whose messages extend what that response covered (its conversation plus
its own answer: text and function calls) sends only the new messages with
``previous_response_id``;
anything else (a new connection, a forgotten chain) sends the whole context. The
frame itself is built in :mod:`.ws_payload` (asyncio-free, shared with :mod:`.ws_ahead`).
"""

from __future__ import annotations

from collections.abc import Sequence

from spark_cli.protocol.channel import ConversationItem, Message, TurnRequest
from spark_cli.transport.responses_fold import ResponsesFold
from spark_cli.transport.ws.ws_payload import Chain, create_payload, item

__all__ = ["Chain", "chain_after", "create_payload", "item"]


def chain_after(request: TurnRequest, fold: ResponsesFold, steers: Sequence[str]) -> Chain | None:
    """What the server holds once this turn's response ended (None: nothing to continue).

    Steered turns cover, in order: the answer up to each steer, the steer, and
    the answer after the last one. A response that called tools covers its text
    as one assistant message (only when it wrote any), then its calls in the order
    they were reported: the conversation the caller builds for the follow-up
    (``protocol.channel``'s "Tools"), so that follow-up sends only the outputs.
    Nothing is continued after a call that started and never completed (the
    server holds a call the caller cannot answer) or after calls in a steered
    turn (what the server holds is not the caller's order).
    """
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

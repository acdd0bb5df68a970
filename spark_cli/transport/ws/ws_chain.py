"""``previous_response_id`` chaining on the Responses WebSocket: what a turn must send.

The server keeps the latest response of a connection (``store: false``). A
turn whose messages extend what that response covered (its conversation plus
its own answer) sends only the new messages with ``previous_response_id``;
anything else (a new connection, a forgotten chain) sends the whole context.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from spark_cli.protocol.channel import Message, TurnRequest
from spark_cli.transport.responses_fold import ResponsesFold
from spark_cli.transport.ws.ws_links import Chain


def create_payload(request: TurnRequest, chain: Chain | None, *, generate: bool = True) -> str:
    """The ``response.create`` frame for ``request`` on a connection holding ``chain``."""
    messages = request.messages
    body: dict[str, object] = {"type": "response.create", "model": request.model}
    if chain is not None:
        covered = len(chain.covered)
        if len(messages) > covered and messages[:covered] == chain.covered:
            body["previous_response_id"] = chain.response_id
            messages = messages[covered:]
    body["input"] = [item(m) for m in messages]
    if request.instructions:
        body["instructions"] = request.instructions
    if request.max_output_tokens is not None:
        body["max_output_tokens"] = request.max_output_tokens
    body["store"] = False
    if not generate:
        body["generate"] = False
    return json.dumps(body)


def chain_after(request: TurnRequest, fold: ResponsesFold, steers: Sequence[str]) -> Chain | None:
    """What the server holds once this turn's response ended (None: nothing to continue).

    Steered turns cover, in order: the answer up to each steer, the steer, and
    the answer after the last one.
    """
    finished = fold.finished
    if (
        finished is None
        or finished.status not in ("completed", "incomplete")
        or fold.response_id is None
        or len(fold.earlier_texts) != len(steers)
    ):
        return None
    covered = list(request.messages)
    for earlier, steer in zip(fold.earlier_texts, steers, strict=True):
        covered.append(Message("assistant", earlier))
        covered.append(Message("user", steer))
    covered.append(Message("assistant", fold.text))
    return Chain(fold.response_id, tuple(covered))


def item(message: Message) -> dict[str, str]:
    """One input message as the Responses API takes it."""
    return {"type": "message", "role": message.role, "content": message.content}

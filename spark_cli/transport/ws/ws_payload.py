"""The ``response.create`` frame a turn sends, and the chain it may continue.

Kept free of asyncio (and of websockets): :mod:`.ws_ahead` builds the same frame
before the event loop exists, so a request sent ahead and one sent by the
channel are the same bytes by construction. :mod:`.ws_chain` decides what a
connection holds after a response (``chain_after``).
"""

from __future__ import annotations

import json

from spark_cli.protocol.channel import ConversationItem, TurnRequest
from spark_cli.record import record
from spark_cli.transport.items import responses_item, responses_tools


@record
class Chain:
    """The response a connection holds (``store: false``: only its latest one)."""

    response_id: str
    covered: tuple[ConversationItem, ...]
    """The conversation the response saw, its own answer included."""


def create_payload(request: TurnRequest, chain: Chain | None, *, generate: bool = True) -> str:
    """The ``response.create`` frame for ``request`` on a connection holding ``chain``."""
    messages = request.messages
    body: dict[str, object] = {"type": "response.create", "model": request.model}
    if chain is not None:
        covered = len(chain.covered)
        if len(messages) > covered and messages[:covered] == chain.covered:
            body["previous_response_id"] = chain.response_id
            messages = messages[covered:]
    body["input"] = [responses_item(m) for m in messages]
    if request.tools:
        body["tools"] = responses_tools(request.tools)
    if request.instructions:
        body["instructions"] = request.instructions
    if request.max_output_tokens is not None:
        body["max_output_tokens"] = request.max_output_tokens
    body["store"] = False
    if not generate:
        body["generate"] = False
    return json.dumps(body)

item = responses_item

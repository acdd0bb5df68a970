"""What a brain is asked, from a wire's request: the conversation as turns, the tools.

Request items become :class:`~spark_cli.engine.brains.base.BrainTurn` values (a
call keeps its ``call_id`` and name, an output its ``call_id``); an output that
answers no call of the conversation is refused (400, OpenAI's wording). After a
response, :func:`answered` extends the conversation as a chained request
continues it: the text as an assistant message, then the calls. The brain may
call the declared functions that ``tool_choice`` allows (``"none"``: none).
"""

from __future__ import annotations

from spark_cli.engine.brains.base import (
    CALL,
    OUTPUT,
    BrainRequest,
    BrainTurn,
    edit_format_from_instructions,
)
from spark_cli.engine.wire import responses as wire
from spark_cli.engine.wire.chat import ChatRequest
from spark_cli.engine.wire.responses import (
    CreateRequest,
    InputCall,
    InputItem,
    InputMessage,
    WireError,
)

Conversation = tuple[BrainTurn, ...]


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
    """The conversation after a response: its text as an assistant message (when it wrote
    any, or made no call), then its calls -- what a chained request continues."""
    after = conversation
    if text or not calls:
        after = (*after, BrainTurn("assistant", text))
    return after + turns(calls)


def check_outputs(conversation: Conversation) -> None:
    """Every function call output must answer a call made before it in the conversation
    (400, as OpenAI refuses it)."""
    called: set[str] = set()
    for turn in conversation:
        if turn.role == CALL:
            called.add(turn.call_id)
        elif turn.role == OUTPUT and turn.call_id not in called:
            raise WireError(400, wire.INVALID_VALUE, "No tool call found for function call "
                            f"output with call_id {turn.call_id[:100]}.", "input")



def brain_request(request: CreateRequest | ChatRequest, conversation: Conversation) -> BrainRequest:
    """The brain's request: the edit format from the instructions, the callable tools."""
    return BrainRequest(
        model=request.model, instructions=request.instructions, conversation=conversation,
        edit_format=edit_format_from_instructions(request.instructions),
        tools=frozenset(t.name for t in request.tools if request.tool_choice.allows(t.name)),
        parallel_tool_calls=request.parallel_tool_calls,
    )

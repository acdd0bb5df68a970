"""Server events in OpenAI's own shapes, built with the official ``openai`` SDK's types.

Every event here is made by constructing the SDK's model (which validates it) and
taking its ``to_dict()``: what a scripted server sends is what OpenAI sends, not what
our engine happens to send. Quirky servers' shapes (no ``index``, no ``id``) are not
OpenAI's and are written by hand in the tests that need them.
"""

from __future__ import annotations

from typing import Any

from openai._models import construct_type_unchecked
from openai._types import omit
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.chat import ChatCompletionChunk
from openai.types.chat.chat_completion_chunk import (
    Choice,
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)
from openai.types.completion_usage import CompletionUsage
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

Event = dict[str, Any]


class ResponseScript:
    """One Responses stream, event by event, numbered as OpenAI numbers them."""

    def __init__(self, response_id: str = "resp_1") -> None:
        self.response_id = response_id
        self.events: list[Event] = []
        self.output: list[ResponseOutputMessage | ResponseFunctionToolCall] = []

    def _add(self, event: Any) -> None:
        self.events.append(event.to_dict())

    @property
    def _seq(self) -> int:
        return len(self.events)

    def _response(self, status: str, output: list[Any]) -> Response:
        usage = ResponseUsage(
            input_tokens=12, output_tokens=7, total_tokens=19,
            input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        ) if status == "completed" else None
        return Response(
            id=self.response_id, created_at=1_765_000_000, model="gpt-5.1-codex-mini",
            object="response", output=output, parallel_tool_calls=True, tool_choice="auto",
            tools=[], status=status, usage=usage,  # type: ignore[arg-type]
        )

    def created(self) -> ResponseScript:
        self._add(ResponseCreatedEvent(type="response.created", sequence_number=self._seq,
                                       response=self._response("in_progress", [])))
        return self

    def message(self, *pieces: str, item_id: str = "msg_1") -> ResponseScript:
        """A message item (a preamble) streamed as text deltas."""
        index = len(self.output)
        partial = ResponseOutputMessage(id=item_id, type="message", role="assistant",
                                        status="in_progress", content=[])
        self._add(ResponseOutputItemAddedEvent(type="response.output_item.added", item=partial,
                                               output_index=index, sequence_number=self._seq))
        self._add(ResponseContentPartAddedEvent(
            type="response.content_part.added", item_id=item_id, output_index=index,
            content_index=0, sequence_number=self._seq,
            part=ResponseOutputText(type="output_text", text="", annotations=[])))
        for piece in pieces:
            self._add(ResponseTextDeltaEvent(
                type="response.output_text.delta", item_id=item_id, output_index=index,
                content_index=0, delta=piece, logprobs=[], sequence_number=self._seq))
        text = ResponseOutputText(type="output_text", text="".join(pieces), annotations=[])
        self._add(ResponseTextDoneEvent(
            type="response.output_text.done", item_id=item_id, output_index=index,
            content_index=0, text=text.text, logprobs=[], sequence_number=self._seq))
        self._add(ResponseContentPartDoneEvent(
            type="response.content_part.done", item_id=item_id, output_index=index,
            content_index=0, part=text, sequence_number=self._seq))
        whole = ResponseOutputMessage(id=item_id, type="message", role="assistant",
                                      status="completed", content=[text])
        self._add(ResponseOutputItemDoneEvent(type="response.output_item.done", item=whole,
                                              output_index=index, sequence_number=self._seq))
        self.output.append(whole)
        return self

    def call(self, name: str, *pieces: str, call_id: str, item_id: str,
             arguments_done: bool = True, item_done: bool = True,
             status: str = "completed") -> ResponseScript:
        """A function call item: added, argument deltas, arguments done, item done."""
        index = len(self.output)
        opened = ResponseFunctionToolCall(type="function_call", id=item_id, call_id=call_id,
                                          name=name, arguments="", status="in_progress")
        self._add(ResponseOutputItemAddedEvent(type="response.output_item.added", item=opened,
                                               output_index=index, sequence_number=self._seq))
        for piece in pieces:
            self._add(ResponseFunctionCallArgumentsDeltaEvent(
                type="response.function_call_arguments.delta", item_id=item_id,
                output_index=index, delta=piece, sequence_number=self._seq))
        arguments = "".join(pieces)
        if arguments_done:
            self._add(ResponseFunctionCallArgumentsDoneEvent(
                type="response.function_call_arguments.done", item_id=item_id,
                output_index=index, arguments=arguments, sequence_number=self._seq))
        whole = ResponseFunctionToolCall(type="function_call", id=item_id, call_id=call_id,
                                         name=name, arguments=arguments,
                                         status=status)  # type: ignore[arg-type]
        if item_done:
            self._add(ResponseOutputItemDoneEvent(type="response.output_item.done", item=whole,
                                                  output_index=index,
                                                  sequence_number=self._seq))
        self.output.append(whole)
        return self

    def sdk_calls(self) -> list[tuple[str, str, str]]:
        """The calls the official SDK's own stream accumulator finds in these events."""
        state: ResponseStreamState[None] = ResponseStreamState(input_tools=omit,
                                                               text_format=omit)
        for event in self.events:
            state.handle_event(construct_type_unchecked(type_=ResponseStreamEvent,  # type: ignore[arg-type]
                                                        value=event))
        response = state._completed_response
        assert response is not None
        return [(item.call_id, item.name, item.arguments) for item in response.output
                if item.type == "function_call"]

    def completed(self, *, output: list[Any] | None = None) -> list[Event]:
        response = self._response("completed", self.output if output is None else output)
        self._add(ResponseCompletedEvent(type="response.completed", response=response,
                                         sequence_number=self._seq))
        return self.events


def final_only_call(name: str, arguments: str, *, call_id: str,
                    item_id: str) -> ResponseFunctionToolCall:
    """A function call item as a final response's ``output`` holds it."""
    return ResponseFunctionToolCall(type="function_call", id=item_id, call_id=call_id,
                                    name=name, arguments=arguments, status="completed")


# ---- Chat Completions ----


_UNSET: Any = object()


def chat_chunk(*, content: str | None = _UNSET, role: str | None = None,
               tool_calls: list[ChoiceDeltaToolCall] | None = None,
               finish: str | None = None, chunk_id: str = "chatcmpl-1") -> Event:
    """One ``chat.completion.chunk`` as OpenAI streams it: only the fields given are sent
    (``content=None`` sends ``"content": null``, as OpenAI does beside tool calls)."""
    fields: dict[str, Any] = {}
    if role is not None:
        fields["role"] = role
    if content is not _UNSET:
        fields["content"] = content
    if tool_calls is not None:
        fields["tool_calls"] = tool_calls
    chunk = ChatCompletionChunk(
        id=chunk_id, object="chat.completion.chunk", created=1_765_000_000,
        model="gpt-4.1-mini", system_fingerprint="fp_1",
        choices=[Choice(index=0, delta=ChoiceDelta(**fields),
                        finish_reason=finish, logprobs=None)],  # type: ignore[arg-type]
    )
    return chunk.to_dict()


def call_piece(index: int, *, arguments: str = "", call_id: str | None = None,
               name: str | None = None) -> ChoiceDeltaToolCall:
    """One ``delta.tool_calls`` entry: id, type and name only in a call's first piece."""
    if call_id is None:
        return ChoiceDeltaToolCall(index=index,
                                   function=ChoiceDeltaToolCallFunction(arguments=arguments))
    return ChoiceDeltaToolCall(
        index=index, id=call_id, type="function",
        function=ChoiceDeltaToolCallFunction(name=name, arguments=arguments),
    )


def usage_chunk(chunk_id: str = "chatcmpl-1") -> Event:
    chunk = ChatCompletionChunk(
        id=chunk_id, object="chat.completion.chunk", created=1_765_000_000,
        model="gpt-4.1-mini", choices=[],
        usage=CompletionUsage(prompt_tokens=20, completion_tokens=9, total_tokens=29),
    )
    return chunk.to_dict()

"""What the SSE channels POST, byte for byte: a text-only turn is what it was before tools."""

from __future__ import annotations

from spark_cli.protocol.channel import Message, TurnRequest
from spark_cli.transport.bodies import chat_body, encode, responses_body

TEXT = TurnRequest(
    "m", (Message("user", "hi"), Message("assistant", "yo"), Message("user", "more")),
    instructions="be brief", max_output_tokens=9)


def test_text_only_bodies_are_byte_for_byte_what_they_were() -> None:
    assert encode(chat_body(TEXT, None)) == (
        b'{"model":"m","messages":[{"role":"system","content":"be brief"},{"role":"user",'
        b'"content":"hi"},{"role":"assistant","content":"yo"},{"role":"user","content":"more"}],'
        b'"stream":true,"stream_options":{"include_usage":true},"max_tokens":9}')
    assert encode(responses_body(TEXT, None)) == (
        b'{"model":"m","input":[{"type":"message","role":"user","content":"hi"},{"type":"message",'
        b'"role":"assistant","content":"yo"},{"type":"message","role":"user","content":"more"}],'
        b'"stream":true,"store":false,"instructions":"be brief","max_output_tokens":9}')

from spark_cli.protocol.sse import SSEDecoder, SSEEvent, encode_event


def decode(raw: bytes) -> list[SSEEvent]:
    decoder = SSEDecoder()
    events = []
    for line in raw.decode().split("\n"):
        event = decoder.feed_line(line)
        if event is not None:
            events.append(event)
    return events


def test_round_trip_named_and_multiline() -> None:
    raw = encode_event('{"a":1}', "response.created") + encode_event("one\ntwo")
    assert decode(raw) == [
        SSEEvent('{"a":1}', "response.created"),
        SSEEvent("one\ntwo", "message"),
    ]


def test_comments_unknown_fields_and_no_space_after_colon() -> None:
    raw = b": keep-alive\nretry: 10\ndata:[DONE]\n\n"
    assert decode(raw) == [SSEEvent("[DONE]")]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert decode(b"\n\nevent: x\n\n") == []


def test_unterminated_event_is_dropped_on_flush() -> None:
    decoder = SSEDecoder()
    assert decoder.feed_line("data: partial") is None
    assert decoder.flush() is None
    assert decoder.feed_line("") is None

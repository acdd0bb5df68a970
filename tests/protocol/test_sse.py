from spark_cli.protocol.sse import COMMENT, SSEDecoder, SSEEvent, encode_event


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
    raw = b": keep-alive\nretry: 10\nid: 7\ndata:[DONE]\n\n"
    assert decode(raw) == [SSEEvent("[DONE]")]


def test_blank_lines_without_data_dispatch_nothing() -> None:
    assert decode(b"\n\nevent: x\n\n") == []


def test_unterminated_event_is_never_dispatched() -> None:
    assert decode(b"data: partial\ndata: more") == []


def test_comments_are_returned_at_once_when_asked_for() -> None:
    decoder = SSEDecoder(comments=True)
    assert decoder.feed_line(": queued 3") == SSEEvent("queued 3", COMMENT)
    assert decoder.feed_line(":no-space") == SSEEvent("no-space", COMMENT)
    assert decoder.feed_line("data: x") is None
    assert decoder.feed_line(": between data lines") == SSEEvent("between data lines", COMMENT)
    assert decoder.feed_line("") == SSEEvent("x")


def test_a_named_event_is_never_mistaken_for_a_comment() -> None:
    assert all(e.event != COMMENT for e in decode(b"event:\ndata: a\n\n"))

"""The outbox: the first text at once, later prose joined, every update in its place."""

from __future__ import annotations

from typing import Any

from spark_cli.acp.updates import Outbox


async def test_prose_is_joined_and_other_updates_keep_their_place():
    sent: list[Any] = []

    async def send(update: Any) -> None:
        sent.append(update)

    outbox = Outbox(send)
    outbox.prose("Hel")
    outbox.prose("lo")
    outbox.update("edit")
    outbox.prose(" wor")
    outbox.prose("ld")
    await outbox.close()
    texts = [u if isinstance(u, str) else u.content.text for u in sent]
    assert texts == ["Hello", "edit", " world"]
    assert sent[0].session_update == "agent_message_chunk"


async def test_a_failed_send_reaches_close():
    async def send(update: Any) -> None:
        raise ConnectionError("the editor went away")

    outbox = Outbox(send)
    outbox.prose("x")
    try:
        await outbox.close()
    except ConnectionError as exc:
        assert "went away" in str(exc)
    else:
        raise AssertionError("close() hid the failed send")

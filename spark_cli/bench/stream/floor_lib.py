"""The library floor of `spark bench stream` (its ratios' reference): websockets' asyncio
client or h11 over asyncio streams, decoded as :mod:`.floor` decodes (``... ws|chat URL TOKEN
N``)."""

from __future__ import annotations

import asyncio
import sys
from urllib.parse import urlsplit

import h11
from websockets.asyncio.client import connect

from spark_cli.bench.stream.floor import chat_body, chat_text, create_event, ws_text


async def read_ws(ws_url: str, token: str, tokens: int) -> tuple[int, int]:
    """(text messages, characters) of one Responses answer, websockets' asyncio client."""
    messages = chars = 0
    async with connect(ws_url, additional_headers={"Authorization": f"Bearer {token}"},
                       compression=None, proxy=None, max_size=2**24) as ws:
        await ws.send(create_event(tokens))
        async for raw in ws:
            text = ws_text(raw)
            if text is None:
                break
            if text:
                messages, chars = messages + 1, chars + len(text)
    return messages, chars


async def read_chat(base_url: str, token: str, tokens: int) -> tuple[int, int]:
    """(text chunks, characters) of one Chat Completions answer, h11 over asyncio streams."""
    parts = urlsplit(base_url)
    body = chat_body(tokens)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port or 80)
    conn = h11.Connection(h11.CLIENT)
    head = h11.Request(method="POST", target=parts.path.rstrip("/") + "/chat/completions",
                       headers=[("Host", parts.netloc), ("Authorization", f"Bearer {token}"),
                                ("Content-Type", "application/json"),
                                ("Content-Length", str(len(body)))])
    writer.write(conn.send(head) + conn.send(h11.Data(data=body)) + conn.send(h11.EndOfMessage()))
    messages = chars = 0
    rest = b""
    try:
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await reader.read(65536))
                continue
            if isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                break
            if not isinstance(event, h11.Data):
                continue
            *lines, rest = (rest + bytes(event.data)).split(b"\n")
            for line in lines:
                text = chat_text(line)
                if text is None:
                    return messages, chars
                if text:
                    messages, chars = messages + 1, chars + len(text)
    finally:
        writer.close()
    return messages, chars


def main(argv: list[str]) -> int:
    wire, url, token, tokens = argv[0], argv[1], argv[2], int(argv[3])
    reader = read_ws if wire == "ws" else read_chat
    messages, chars = asyncio.run(reader(url, token, tokens))
    print(messages, chars, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

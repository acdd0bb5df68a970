"""The bare-socket floor of `spark bench stream`: the least a Python client can do.

``python -m spark_cli.bench.stream.floor ws|chat URL TOKEN N``: a blocking socket, the stdlib
only, each message JSON-decoded (shared with :mod:`.floor_lib`); prints ``messages chars``."""

from __future__ import annotations

import base64
import json
import os
import socket
import sys
from urllib.parse import urlsplit

PROMPT = "stream lorem"
TERMINAL = frozenset({"response.completed", "response.incomplete", "response.failed", "error"})


def create_event(tokens: int) -> str:
    return json.dumps({"type": "response.create", "model": "lorem", "store": False,
                       "input": [{"role": "user", "content": PROMPT}],
                       "max_output_tokens": tokens})


def chat_body(tokens: int) -> bytes:
    return json.dumps({"model": "lorem", "stream": True, "max_tokens": tokens,
                       "messages": [{"role": "user", "content": PROMPT}]}).encode()


def ws_text(raw: str | bytes) -> str | None:
    """The text of one Responses event ("" for none); None at the answer's end."""
    event = json.loads(raw)
    kind = event.get("type")
    if kind == "response.output_text.delta":
        return str(event["delta"])
    return None if kind in TERMINAL else ""


def chat_text(line: bytes) -> str | None:
    """The text of one SSE line of a Chat answer ("" for none); None at ``[DONE]``."""
    if not line.startswith(b"data: "):
        return ""  # chunk sizes, blank lines, comments
    payload = line[6:].strip()
    if payload == b"[DONE]":
        return None
    choices = json.loads(payload).get("choices") or ()
    return (choices[0].get("delta", {}).get("content") or "") if choices else ""


def read_ws(ws_url: str, token: str, tokens: int) -> tuple[int, int]:
    """(text messages, characters) of one Responses answer, the WebSocket done by hand."""
    parts = urlsplit(ws_url)
    key = base64.b64encode(os.urandom(16)).decode()
    head = (f"GET {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
            f"Sec-WebSocket-Version: 13\r\nAuthorization: Bearer {token}\r\n\r\n").encode()
    messages = chars = 0
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80)) as sock:
        sock.sendall(head)
        buffer = b""
        while b"\r\n\r\n" not in buffer:
            buffer += sock.recv(65536)
        status, _, buffer = buffer.partition(b"\r\n\r\n")
        if not status.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(f"no WebSocket: {status[:80]!r}")
        sock.sendall(_masked_text(create_event(tokens)))
        while True:
            while len(buffer) < 2 or len(buffer) < _frame_end(buffer):
                data = sock.recv(65536)
                if not data:
                    return messages, chars
                buffer += data
            end = _frame_end(buffer)
            start = end - _payload_length(buffer)
            opcode, payload, buffer = buffer[0] & 0x0F, buffer[start:end], buffer[end:]
            if opcode != 1:
                continue  # pings and the like: not text
            text = ws_text(payload)
            if text is None:
                return messages, chars
            if text:
                messages, chars = messages + 1, chars + len(text)


def _payload_length(frame: bytes) -> int:
    short = frame[1] & 0x7F
    if short == 126:
        return int.from_bytes(frame[2:4], "big")
    if short == 127:
        return int.from_bytes(frame[2:10], "big")
    return short


def _frame_end(frame: bytes) -> int:
    """Where the frame at ``frame[0]`` ends (past the buffer while its header is incomplete)."""
    short = frame[1] & 0x7F
    header = 2 + (2 if short == 126 else 8 if short == 127 else 0)
    if len(frame) < header:
        return header + 1
    return header + _payload_length(frame)


def _masked_text(text: str) -> bytes:
    """One client text frame (clients must mask)."""
    data = text.encode()
    mask = os.urandom(4)
    size = len(data)
    head = bytes([0x81]) + (bytes([0x80 | size]) if size < 126
                            else bytes([0x80 | 126]) + size.to_bytes(2, "big"))
    return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def read_chat(base_url: str, token: str, tokens: int) -> tuple[int, int]:
    """(text chunks, characters) of one Chat Completions answer over SSE."""
    parts = urlsplit(base_url)
    body = chat_body(tokens)
    head = (f"POST {parts.path.rstrip('/')}/chat/completions HTTP/1.1\r\n"
            f"Host: {parts.netloc}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nAccept: text/event-stream\r\n"
            f"Content-Length: {len(body)}\r\n\r\n").encode()
    messages = chars = 0
    with socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 80)) as sock:
        sock.sendall(head + body)
        buffer = b""
        in_body = False
        while True:
            data = sock.recv(65536)
            if not data:
                break
            buffer += data
            if not in_body:
                end = buffer.find(b"\r\n\r\n")
                if end < 0:
                    continue
                buffer, in_body = buffer[end + 4:], True
            *lines, buffer = buffer.split(b"\n")
            for line in lines:
                text = chat_text(line)
                if text is None:
                    return messages, chars
                if text:
                    messages, chars = messages + 1, chars + len(text)
    return messages, chars


def main(argv: list[str]) -> int:
    wire, url, token, tokens = argv[0], argv[1], argv[2], int(argv[3])
    reader = read_ws if wire == "ws" else read_chat
    messages, chars = reader(url, token, tokens)
    print(messages, chars, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Deltas that have already arrived travel up the layers as one.

Measured by ``spark bench stream`` (docs/benchmarks.md, ``## Stream``).
"""

from __future__ import annotations

from spark_cli.protocol.channel import TextDelta


def merged(parts: list[str]) -> TextDelta:
    """One delta for the deltas that arrived together (``parts`` not empty).

    A provider streaming one token per message at thousands of tokens per second
    often has several messages waiting by the time the reader looks (at 2,000
    tok/s a read of the socket brings ~3 on average). Each ``TextDelta`` crosses
    about five async-generator layers (the channel, the turn, the conversation,
    the front end) and the edit-block parser; one delta for all that arrived
    together pays that once. Text is merged only up to the next non-text event,
    which keeps its place: the order of text, tool-call events, usage and the
    finish is exactly what was sent. Nothing waits to be merged: a reader yields
    what it holds before it would wait for the network.
    """
    return TextDelta(parts[0] if len(parts) == 1 else "".join(parts))

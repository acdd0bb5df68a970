"""A brain's calls among its pieces: markers are free, argument pieces are tokens."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.engine.brains.base import BrainCall
from spark_cli.engine.core.pieces import CALL_END, CallStart, PieceSource, argument_pieces
from spark_cli.protocol.tokens import split_pieces

CALL = BrainCall("search", '{"pattern": "\\\\bx\\\\b"}')


def _answer(text: str) -> Iterator[str | BrainCall]:
    yield text
    yield CALL
    yield BrainCall("list_files", "")


async def _drain(source: PieceSource, size: int) -> list[list[object]]:
    frames: list[list[object]] = []
    while await source.has_more():
        frames.append(await source.take(size))
    return frames


@given(st.text(alphabet="ab \n(_.", max_size=60), st.integers(1, 9), st.booleans())
def test_take_counts_text_pieces_only(text: str, size: int, offload: bool) -> None:
    async def pool(work: object) -> None:
        work()  # type: ignore[operator]

    source = PieceSource(_answer(text), pool if offload else None)
    frames = asyncio.run(_drain(source, size))
    flat = [p for frame in frames for p in frame]
    expected = [*split_pieces(text), CallStart(CALL.name, CALL.arguments),
                *argument_pieces(CALL.arguments), CALL_END, CallStart("list_files", ""),
                CALL_END]
    assert flat == expected
    tokens = [sum(type(p) is str for p in frame) for frame in frames]
    if tokens[-1] == 0:  # markers pulled after the last full frame: the answer's end
        tokens.pop()
    assert all(t == size for t in tokens[:-1]) and 0 < tokens[-1] <= size
    start = next(f for f in frames if CallStart(CALL.name, CALL.arguments) in f)
    last = frames.index(start)
    while CALL_END not in frames[last]:
        last += 1
    ended = frames[last]
    assert type(ended[ended.index(CALL_END) - 1]) is str  # its end came with its last piece


async def test_left_within_counts_tokens_not_markers() -> None:
    source = PieceSource(iter([CALL]))
    assert await source.left_within(100) == len(argument_pieces(CALL.arguments))
    assert source.marked

"""Turning a brain's text chunks into token pieces, lazily and in order.

A brain yields text in any chunking; pieces are cut with
:data:`spark_cli.protocol.tokens.PIECE` over each chunk, with the last piece
carried into the next chunk so chunk boundaries do not change the count (the
total matches ``count_tokens`` of the whole answer). A brain may yield forever:
pieces are pulled only as they are needed.
"""

from __future__ import annotations

from collections.abc import Iterator

from spark_cli.protocol.tokens import split_pieces


class BrainError(Exception):
    """The brain raised while producing its answer (the cause is chained)."""


class PieceSource:
    __slots__ = ("_buffer", "_carry", "_chunks", "_index", "exhausted")

    def __init__(self, chunks: Iterator[str]) -> None:
        self._chunks = chunks
        self._buffer: list[str] = []
        self._index = 0
        self._carry = ""
        self.exhausted = False

    def _fill(self) -> bool:
        """Pull one more chunk; False when the brain has nothing more."""
        if self.exhausted:
            return False
        try:
            chunk = next(self._chunks, None)
            while chunk == "":
                chunk = next(self._chunks, None)
        except Exception as exc:
            raise BrainError(str(exc) or type(exc).__name__) from exc
        if chunk is not None:
            pieces = split_pieces(self._carry + chunk)
            self._carry = pieces.pop()
            if self._index:
                del self._buffer[: self._index]
                self._index = 0
            self._buffer.extend(pieces)
            return True
        self.exhausted = True
        if self._carry:
            self._buffer.append(self._carry)
            self._carry = ""
        return False

    def take(self, n: int) -> list[str]:
        """Up to ``n`` next pieces (fewer only when the answer ends)."""
        while len(self._buffer) - self._index < n and self._fill():
            pass
        start = self._index
        end = min(len(self._buffer), start + n)
        self._index = end
        return self._buffer[start:end]

    def has_more(self) -> bool:
        while len(self._buffer) == self._index:
            if not self._fill() and len(self._buffer) == self._index:
                return False
        return True

"""Parse a whole answer with the streaming parser, checking that one-character chunks
give the same blocks, and pick the items apart."""

from __future__ import annotations

from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit, ParsedItem, ProseDelta


def parse(text: str) -> list[ParsedItem]:
    """Whole, and in one-character chunks: the blocks must agree."""
    whole = EditStreamParser()
    items = whole.feed(text) + whole.close()
    single = EditStreamParser()
    chars = [item for ch in text for item in single.feed(ch)] + single.close()
    assert [i for i in items if not isinstance(i, ProseDelta)] == [
        i for i in chars if not isinstance(i, ProseDelta)]
    return items


def edits(items: list[ParsedItem]) -> list[FileEdit]:
    return [i for i in items if isinstance(i, FileEdit)]


def rejected(items: list[ParsedItem]) -> list[BlockRejected]:
    return [i for i in items if isinstance(i, BlockRejected)]


def prose(items: list[ParsedItem]) -> str:
    return "".join(i.text for i in items if isinstance(i, ProseDelta))

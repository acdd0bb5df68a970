"""One file chosen for a request, why, and what it costs; how the files and the map travel.

Shared by :mod:`.assemble` (the files the caller gives) and :mod:`.extras`
(the files it finds). A file the model already has unchanged (``known``
holds its sha256) is not ``fresh``: it is not re-sent and costs 0 tokens.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from spark_cli.protocol.files import FileBlock, render_file_block, render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.building.targets import TargetFile
from spark_cli.session.context.sources import language_for_path

MAP_HEADER = ("Repository map: signature lines of the most referenced definitions in files "
              "not shown in full here (skipped lines marked ⋮). Ask for a file before "
              "editing it.\n")
ADDED = "added"
NAMED = "named in the prompt"
MENTIONS = "mentions "
"""The ``why`` of a file found through a symbol: ``mentions total_price``."""


@dataclass(frozen=True, slots=True)
class Pick:
    target: TargetFile
    why: str
    tokens: int
    fresh: bool

    @property
    def is_reference(self) -> bool:
        return self.why.startswith(MENTIONS)


def pick(target: TargetFile, why: str, known: Mapping[str, str]) -> Pick:
    fresh = known.get(target.path) != target.sha256
    tokens = count_tokens(render_file_block(block_of(target))) if fresh else 0
    return Pick(target, why, tokens, fresh)


def block_of(target: TargetFile) -> FileBlock:
    return FileBlock(target.path, target.text, language_for_path(target.path) or "")


def map_section(text: str) -> str:
    """The map as it travels: the header line, then the outline in a ``~~~`` fence (a
    fence that file-block parsers skip and that never looks like a file block)."""
    fence = "~" * max(3, 1 + max((len(r) for r in text.split("\n") if set(r) == {"~"}),
                                 default=0))
    return f"{MAP_HEADER}{fence}\n{text}{fence}\n"


def compose(picks: Sequence[Pick], instruction: str, outline: str) -> tuple[str, str]:
    """(the user message as sent, the same as remembered: without the map)."""
    blocks = [block_of(p.target) for p in picks if p.fresh]
    remembered = instruction.strip() + "\n"
    if blocks:
        remembered = render_file_blocks(blocks) + "\n" + remembered
    return (map_section(outline) + "\n" + remembered if outline else remembered), remembered

"""The transcript's finished blocks: compact renderables kept, their lines made again on demand.

Lines (``Strip``) are kept for the blocks read last, up to :data:`KEEP_LINES` (`spark bench
soak`); blocks come and go at either end, addressed by absolute line numbers."""

from __future__ import annotations

from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterator

from rich.console import Console, ConsoleOptions, RenderableType
from rich.text import Text
from textual.strip import Strip

from spark_cli.record import record

KEEP_LINES = 1000
"""Lines kept rendered (the blocks read last); older ones are rendered again when read."""

Render = Callable[[RenderableType], list[Strip]]


@record
class Unsettled:
    """A block shown as its plain ``text`` (closed while hurried) or, with none, counted at
    another width, until ``Transcript.settle`` renders ``view``."""

    view: RenderableType
    text: str | None = None

    def __rich_console__(self, console: Console,
                         options: ConsoleOptions) -> Iterator[RenderableType]:
        yield self.view if self.text is None else Text(self.text)


class Blocks:
    """Finished blocks, addressed by line (see the module doc)."""

    def __init__(self, render: Render, keep_lines: int = KEEP_LINES) -> None:
        self._render = render
        self._keep = keep_lines
        self._renderables: list[RenderableType] = []
        self._ends: list[int] = []  # absolute line number after each block
        self._base = 0  # the absolute line number of line 0
        self._kept: OrderedDict[int, list[Strip]] = OrderedDict()  # block's end -> its lines
        self._kept_lines = 0
        self._last = -1  # the block ``line`` found last (most reads hit it again)

    def __len__(self) -> int:
        """Lines in all blocks."""
        return (self._ends[-1] - self._base) if self._ends else 0

    @property
    def count(self) -> int:
        """Blocks."""
        return len(self._renderables)

    def start(self, block: int) -> int:
        """The first line of ``block`` (``len(self)`` for ``block == count``)."""
        return (self._ends[block - 1] if block else self._base) - self._base

    def block_at(self, index: int) -> int:
        """The block holding line ``index`` (``count`` past the end)."""
        return bisect_right(self._ends, index + self._base)

    def renderable(self, block: int) -> RenderableType:
        return self._renderables[block]

    def append(self, renderable: RenderableType, strips: list[Strip]) -> None:
        """A block at the end, with its lines as rendered now (at least one)."""
        end = (self._ends[-1] if self._ends else self._base) + len(strips)
        self._renderables.append(renderable)
        self._ends.append(end)
        self._keep_lines(end, strips)

    def prepend(self, blocks: list[tuple[RenderableType, list[Strip]]]) -> None:
        """Blocks before all others (oldest first), with their lines."""
        added = sum(len(strips) for _, strips in blocks)
        self._base -= added
        end = self._base
        ends = []
        for _, strips in blocks:
            end += len(strips)
            ends.append(end)
        self._renderables[0:0] = [renderable for renderable, _ in blocks]
        self._ends[0:0] = ends
        self._last = -1
        for (_, strips), end in zip(blocks, ends, strict=True):
            self._keep_lines(end, strips)

    def replace(self, block: int, renderable: RenderableType, strips: list[Strip]) -> None:
        """``block`` is now ``renderable`` with these lines; the lines after it move."""
        ends = self._ends
        end = ends[block]
        moved = len(strips) - (end - (ends[block - 1] if block else self._base))
        self._renderables[block] = renderable
        self._let_go(end)
        if moved:
            self._kept = OrderedDict((e + moved if e > end else e, lines)
                                     for e, lines in self._kept.items())
            for b in range(block, len(ends)):
                ends[b] += moved
            self._last = -1
        self._keep_lines(ends[block], strips)

    def truncate(self, count: int) -> None:
        """Only the first ``count`` blocks stay."""
        for end in self._ends[count:]:
            self._let_go(end)
        del self._renderables[count:]
        del self._ends[count:]
        self._last = -1

    def drop_first(self) -> int:
        """The first block leaves; the lines it had."""
        end = self._ends.pop(0)
        self._renderables.pop(0)
        self._let_go(end)
        lines = end - self._base
        self._base = end
        self._last = -1
        return lines

    def clear(self) -> None:
        self._renderables = []
        self._ends = []
        self._kept = OrderedDict()
        self._kept_lines = self._base = 0
        self._last = -1

    def rewrap(self) -> None:
        """A new width: every block is :class:`Unsettled` until ``replace``d."""
        self._kept, self._kept_lines = OrderedDict(), 0
        self._renderables = [r if isinstance(r, Unsettled) else Unsettled(r)
                             for r in self._renderables]

    def line(self, index: int) -> Strip:
        """Line ``index`` (0 <= index < len(self)), rendered again if it was let go."""
        at = index + self._base
        ends, block = self._ends, self._last
        if not (0 <= block < len(ends) and at < ends[block]
                and (block == 0 or ends[block - 1] <= at)):
            block = self._last = bisect_right(ends, at)
        end = ends[block]
        strips = self._kept.get(end)
        if strips is None:
            strips = self._lines_of(block)
            self._keep_lines(end, strips)
        else:
            self._kept.move_to_end(end)
        return strips[at - (ends[block - 1] if block else self._base)]

    def all_lines(self) -> Iterator[Strip]:
        """Every line, top to bottom (what was let go is rendered, and not kept)."""
        for block, end in enumerate(self._ends):
            kept = self._kept.get(end)
            yield from kept if kept is not None else self._lines_of(block)

    def _lines_of(self, block: int) -> list[Strip]:
        """The block rendered again, as many lines as it had when written."""
        start = self._ends[block - 1] if block else self._base
        count = self._ends[block] - start
        strips = self._render(self._renderables[block])[:count]
        if len(strips) < count:
            strips += [Strip.blank(0)] * (count - len(strips))
        return strips

    def _keep_lines(self, end: int, strips: list[Strip]) -> None:
        self._let_go(end)
        self._kept[end] = strips
        self._kept_lines += len(strips)
        kept = self._kept
        while self._kept_lines > self._keep and len(kept) > 1:
            _, oldest = kept.popitem(last=False)
            self._kept_lines -= len(oldest)

    def _let_go(self, end: int) -> None:
        strips = self._kept.pop(end, None)
        if strips is not None:
            self._kept_lines -= len(strips)

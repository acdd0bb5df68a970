"""The transcript: rendered lines kept as strips, a live tail, cost flat in its length."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.geometry import Region, Size
from textual.scroll_view import ScrollView
from textual.selection import Selection
from textual.strip import Strip

from spark_cli.tui.transcript.kept_blocks import Blocks, Unsettled
from spark_cli.tui.tuning.styled_rows import StyledRows
from spark_cli.tui.tuning.virtual_size import grow_without_layout

_MAX_BLOCKS = 5000
"""Finished blocks kept (older ones leave the transcript; the conversation keeps them)."""


class Transcript(ScrollView, can_focus=False):
    """The conversation as it streams, on Textual's line API: finished blocks (``Blocks``), the
    open block's plain lines until it closes (``replace_open``) or comes into view (``settle``),
    and the unfinished last line (``set_tail``)."""

    DEFAULT_CSS = """
    Transcript { height: 1fr; overflow-x: hidden; scrollbar-gutter: stable; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._blocks = Blocks(self._strips)
        self._open_blocks: int | None = None  # first block of the streaming block's plain lines
        self._painting = False  # render_lines runs: rows without selection offsets
        self._tail: list[Strip] = []
        self._width = 0
        self._options: ConsoleOptions | None = None  # the console's options at ``_width``
        self._line_look: tuple[int, Style] | None = None
        self._batching = 0
        self.following = True
        """Keep the end in view as lines arrive; off while the user has scrolled up."""
        self._batch_changed = False
        self._hurried = False  # text scrolls faster than anyone reads (the painter's pace)
        self._rewrapped = False  # the width changed since the pace turned fast
        self._styled = StyledRows()
        self.more: Callable[[], list[RenderableType]] | None = None
        """A resumed session's earlier blocks, asked for at the top (None: none left)."""

    @contextmanager
    def batched(self) -> Iterator[None]:
        """Writes inside are laid out and refreshed once, at the end (a frame's prose)."""
        self._batching += 1
        try:
            yield
        finally:
            self._batching -= 1
            if not self._batching and self._batch_changed:
                self._batch_changed = False
                self._changed()

    def write(self, renderable: RenderableType) -> None:
        """Append a finished block."""
        self._blocks.append(renderable, self._strips(renderable))
        if self._blocks.count > _MAX_BLOCKS:
            self._drop_oldest()
        self._changed()

    def write_open_line(self, line: str) -> None:
        """A complete line of the streaming block, shown plain until the block closes."""
        if self._open_blocks is None:
            self._open_blocks = self._blocks.count
        text = Text(line)
        self._blocks.append(text, self._plain_strips(line) or self._strips(text))
        self._changed()

    def replace_open(self, renderable: RenderableType) -> None:
        """The open block closed: its plain lines become ``renderable`` (hurried: ``settle``)."""
        blocks, start = self._blocks, self._open_blocks
        self._open_blocks = None
        if start is not None and self._hurried and self.following:
            lines = [blocks.line(i) for i in range(blocks.start(start), len(blocks))]
            views = [blocks.renderable(b) for b in range(start, blocks.count)]
            text = "\n".join(str(v.view if isinstance(v, Unsettled) else v) for v in views)
            blocks.truncate(start)
            blocks.append(Unsettled(renderable, text), lines)
            self._changed()
            return
        if start is not None:
            blocks.truncate(start)
        self.write(renderable)

    def settle(self) -> None:
        """The blocks in view get their lines at this width (hurried, plain ones stay plain)."""
        hurried = self._hurried and self.following
        blocks, top = self._blocks, self.scroll_offset.y
        block, bottom = blocks.block_at(top), top + self.scrollable_content_region.height
        changed = False
        while block < blocks.count and blocks.start(block) < bottom:
            view = blocks.renderable(block)
            if isinstance(view, Unsettled) and not (hurried and view.text is not None):
                blocks.replace(block, view.view, self._strips(view.view))
                changed = True
            block += 1
        if changed:
            self._changed()

    def prepend(self, renderables: list[RenderableType]) -> None:
        """Put finished blocks before everything shown; the view stays where it was."""
        rendered = [(r, self._strips(r)) for r in renderables]
        added = sum(len(strips) for _, strips in rendered)
        self._blocks.prepend(rendered)
        if self._open_blocks is not None:
            self._open_blocks += len(rendered)
        y = self.scroll_offset.y
        self._changed()
        self.scroll_to(y=y + added, animate=False, immediate=True)

    def _load_more(self) -> None:
        more = self.more
        if more is None:
            return
        blocks = more()
        if not blocks:
            self.more = None
            return
        self.prepend(blocks)

    def set_tail(self, text: str, style: str = "") -> None:
        """The unfinished last line ("" for none); a short plain one is not rendered."""
        if not text:
            self._tail = []
        else:
            plain = None if style else self._plain_strips(text)
            self._tail = plain or self._strips(Text(text, style=style))
        self._changed()

    def clear(self) -> None:
        self._blocks.clear()
        self.more = None
        self._tail = []
        self._open_blocks = None
        self._changed()

    @property
    def line_count(self) -> int:
        return len(self._blocks) + len(self._tail)

    def plain_text(self) -> str:
        """Everything shown, as text (tests and copy)."""
        return "\n".join(strip.text.rstrip() for strip in [*self._blocks.all_lines(),
                                                            *self._tail])

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        index = scroll_y + y
        width, style = self._line_look or self._look()
        strip = self._line(index)
        if strip is None:
            return Strip.blank(width, style)
        if not self._painting:  # the compositor's hit test: where a mouse press lands
            strip = _with_offsets(strip, index)
        selection = self.text_selection
        if selection is not None and (span := selection.get_span(index)) is not None:
            strip = _selected(strip, span, self._selection_style())
        return strip.crop_extend(scroll_x, scroll_x + width, style)

    def render_lines(self, crop: Region) -> list[Strip]:
        """Textual's styled rows, kept while on screen, without the hit test's offsets (soak)."""
        self._painting = True
        try:
            return self._render_rows(crop)
        finally:
            self._painting = False

    def _render_rows(self, crop: Region) -> list[Strip]:
        styles = self.styles
        gutter = styles.gutter
        if gutter.top or gutter.bottom or styles.outline_top[0] or styles.outline_bottom[0] \
                or self.text_selection is not None:
            return super().render_lines(crop)  # rows differ by position: style each
        scroll_x, scroll_y = self.scroll_offset
        top = scroll_y + crop.y
        sources = [self._line(index) for index in range(top, top + crop.height)]
        look = (crop.x, crop.width, self.size, scroll_x, self.rich_style, self.background_colors,
                tuple(self.get_line_filters()), self.hover_style, self.app.ansi_theme)
        return self._styled.render(crop, sources, look, super().render_lines)

    def _selection_style(self) -> Style:
        """The screen's selection colours (Textual's default text colour, transparent, unseen)."""
        style = self.screen.get_component_rich_style("screen--selection")
        return Style(bgcolor=style.bgcolor) if style.color == style.bgcolor else style

    def get_selection(self, selection: Selection) -> tuple[str, str] | None:
        """The text under a mouse selection (Ctrl+C copies it: ``SparkApp.action_ctrl_c``)."""
        return selection.extract(self.plain_text()), "\n"

    def _look(self) -> tuple[int, Style]:
        """Width and style of a line, kept until the size or styles change."""
        self._line_look = (self.scrollable_content_region.width, self.rich_style)
        return self._line_look

    def notify_style_update(self) -> None:
        self._line_look = None
        self._styled.clear()
        super().notify_style_update()

    def on_resize(self) -> None:
        self._line_look = None
        width = self._content_width()
        if width != self._width:
            self._width = width
            self._blocks.rewrap()
            self._rewrapped = True
            self._changed()
            self.settle()
        elif self.following:  # shorter (the queue or a hint appeared): the end stays in view
            self.scroll_end(animate=False, immediate=True, x_axis=False)

    def watch_scroll_y(self, old: float, new: float) -> None:
        """The user scrolled: follow again only once they are back at the end."""
        super().watch_scroll_y(old, new)
        if new <= 0 and new < old and self.more is not None:
            self.call_after_refresh(self._load_more)
        if new < old:
            self.following = new >= self.max_scroll_y - 1
        elif new >= self.max_scroll_y - 1:
            self.following = True
        self._show_bar()
        if self._rewrapped or not (self._hurried and self.following):
            self.settle()  # hurried, only new text comes into view: nothing to settle

    def hurry(self, fast: bool) -> None:
        """While text races and the view follows the end, no scrollbar is drawn (gutter kept)."""
        if fast == self._hurried:
            return
        self._hurried = fast
        self._rewrapped = False
        self._show_bar()
        self.settle()

    def _show_bar(self) -> None:
        shown = "hidden" if self._hurried and self.following else "visible"
        if self.styles.scrollbar_visibility != shown:
            self.styles.scrollbar_visibility = shown

    def follow(self) -> None:
        """Back to the end and following it (the user sent something while scrolled up)."""
        self.following = True
        self.scroll_end(animate=False, immediate=True, x_axis=False)

    def _line(self, index: int) -> Strip | None:
        """Line ``index`` of the blocks, then of the tail; None past the end."""
        blocks, tail = self._blocks, self._tail
        if index < len(blocks):
            return blocks.line(index)
        return tail[index - len(blocks)] if index - len(blocks) < len(tail) else None

    def _content_width(self) -> int:
        return max(self.scrollable_content_region.width, 10)

    def _plain_strips(self, line: str) -> list[Strip] | None:
        """One strip for a short plain ASCII line without rendering it (None: render it)."""
        if len(line) <= (self._width or self._content_width()) and line.isascii() \
                and line.isprintable():
            return [Strip([Segment(line)], len(line))] if line else [Strip.blank(0)]
        return None

    def _strips(self, renderable: RenderableType) -> list[Strip]:
        width = self._width or self._content_width()
        console = self.app.console
        options = self._options
        if options is None or options.max_width != width:
            options = self._options = console.options.update_width(width)
        lines = Segment.split_and_crop_lines(console.render(renderable, options), width,
                                             pad=False, include_new_lines=False)
        return [Strip(line) for line in lines] or [Strip.blank(0)]

    def _drop_oldest(self) -> None:
        self._blocks.drop_first()
        if self._open_blocks is not None:
            self._open_blocks -= 1

    def _changed(self) -> None:
        if self._batching:
            self._batch_changed = True
            return
        at_end = self.following or self.scroll_offset.y >= self.max_scroll_y - 1
        laid_out = self._set_virtual_size(Size(self._width or self._content_width(),
                                               self.line_count))
        if at_end and laid_out:  # a layout must size the view first (one frame, not two)
            self.scroll_end(animate=False, x_axis=False)
        elif at_end:  # at once, and unlike scroll_end no callback queued after each frame
            self.app.animator.force_stop_animation(self, "scroll_y")
            self.scroll_to(y=self.max_scroll_y, animate=False, immediate=True)
        self.refresh()

    def _set_virtual_size(self, size: Size) -> bool:
        """The new virtual size, laid out only when needed (``virtual_size``); True if so."""

        if grow_without_layout(self, size):
            return False
        self._line_look = None  # the scrollbar may come or go: the width changes
        self.virtual_size = size
        return True


def _selected(strip: Strip, span: tuple[int, int], style: Style) -> Strip:
    """``strip`` with the cells from ``span[0]`` to ``span[1]`` (-1: the end) in ``style``."""
    start, end = span
    length = strip.cell_length
    end = length if end == -1 else min(end, length)
    if start >= end:
        return strip
    middle = Segment.apply_style(list(strip.crop(start, end)), post_style=style)
    return Strip.join([strip.crop(0, start), Strip(middle), strip.crop(end, length)])


def _with_offsets(strip: Strip, y: int) -> Strip:
    """``Strip.apply_offsets(0, y)`` without its cache (a copy kept per drawn line)."""
    segments: list[Segment] = []
    x = 0
    for text, style, _ in strip:
        offset = Style.from_meta({"offset": (x, y)})
        segments.append(Segment(text, style + offset if style else offset))
        x += len(text)
    return Strip(segments, strip.cell_length)

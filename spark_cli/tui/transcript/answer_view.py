"""How a block of the answer's Markdown shows: Rich's Markdown, the model's line breaks kept
(:func:`keep_breaks`). One parser and one Pygments lexer per language, made once (Rich makes
them per block); a block keeps only its markup (:class:`AnswerView`), parsed when rendered."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import cache
from typing import TYPE_CHECKING, ClassVar

from rich.console import Console, ConsoleOptions, RenderableType

from spark_cli.record import record
from spark_cli.tui.transcript.markdown_stream import fence_marker

if TYPE_CHECKING:
    from pygments.lexer import Lexer
    from rich.console import Console, ConsoleOptions, RenderResult


def keep_breaks(source: str) -> str:
    """``source`` with every single line break outside code fences made a hard break."""
    lines = source.split("\n")
    fence: str | None = None
    for i, line in enumerate(lines):
        marker = fence_marker(line)
        if fence is None and marker is not None:
            fence = marker
            continue
        if fence is not None:
            if marker is not None and marker.startswith(fence) and line.strip() == marker:
                fence = None
            continue
        following = lines[i + 1] if i + 1 < len(lines) else ""
        if line.strip() and following.strip() and not line.endswith("  ") \
                and fence_marker(following) is None:
            lines[i] = line + "  "
    return "\n".join(lines)


@cache
def _lexer(name: str) -> Lexer | None:
    """Pygments' lexer for ``name`` as Rich's ``Syntax`` makes it (None: unknown), made once."""
    from pygments.lexers import get_lexer_by_name  # deferred: TUI launch
    from pygments.util import ClassNotFound  # deferred: TUI launch

    try:
        return get_lexer_by_name(name, stripnl=False, ensurenl=True, tabsize=4)
    except ClassNotFound:
        return None


@cache
def _markdown_class() -> Callable[[str], RenderableType]:
    from markdown_it import MarkdownIt  # deferred: TUI launch
    from rich.markdown import CodeBlock, Markdown, MarkdownElement  # deferred: TUI launch
    from rich.syntax import Syntax  # deferred: TUI launch

    parser = MarkdownIt().enable("strikethrough").enable("table")

    class KnownLexerCodeBlock(CodeBlock):
        def __rich_console__(self, console: Console,
                             options: ConsoleOptions) -> RenderResult:  # CodeBlock's own
            code = str(self.text).rstrip()
            lexer = _lexer(self.lexer_name) or _lexer("text") or self.lexer_name
            yield Syntax(code, lexer, theme=self.theme, word_wrap=True, padding=1)

    class SharedParserMarkdown(Markdown):
        elements: ClassVar[dict[str, type[MarkdownElement]]] = {
            **Markdown.elements, "fence": KnownLexerCodeBlock,
            "code_block": KnownLexerCodeBlock}

        def __init__(self, markup: str) -> None:  # what Markdown.__init__ sets
            self.markup = markup
            self.parsed = parser.parse(markup)
            self.code_theme = "ansi_dark"
            self.justify = None
            self.style = "none"
            self.hyperlinks = True
            self.inline_code_lexer = None
            self.inline_code_theme = "ansi_dark"

    return SharedParserMarkdown


@record
class AnswerView:
    """A closed block of the answer: its markup, parsed when rendered."""

    markup: str

    def __rich_console__(self, console: Console,
                         options: ConsoleOptions) -> Iterator[RenderableType]:
        yield _markdown_class()(self.markup)


def answer_view(source: str) -> RenderableType:
    """A closed block of the answer, as the transcript keeps it."""
    return AnswerView(keep_breaks(source))

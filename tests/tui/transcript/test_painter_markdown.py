"""The answer's Markdown (one shared parser) renders as Rich's own Markdown of the source with
its line breaks kept."""

from __future__ import annotations

import dataclasses
import re

from rich.console import Console
from rich.markdown import Markdown

from spark_cli.tui.transcript.answer_view import _markdown_class, answer_view, keep_breaks

SOURCES = [
    "# Title",
    "Some *emphasis*, `code`, a [link](http://example.com) and ~~gone~~.",
    "```python\ndef f(x):\n    return x\n```",
    "| a | b |\n|---|---|\n| 1 | 2 |",
    "- one\n- two\n  1. nested",
    "def load(value):\n    return value",
]


def _render(renderable: object) -> str:
    console = Console(width=60, record=True, force_terminal=True, color_system="truecolor")
    console.print(renderable)
    return re.sub(r"id=\d+", "id=N", console.export_text(styles=True))  # link ids are random


def test_same_output_as_rich_markdown():
    for source in SOURCES:
        ours = _render(answer_view(source))
        theirs = _render(Markdown(keep_breaks(source), code_theme="ansi_dark",
                                  inline_code_theme="ansi_dark"))
        assert ours == theirs, source


def test_the_parser_is_built_once():
    assert _markdown_class() is _markdown_class()  # one class, holding the one parser


def test_a_kept_block_is_its_markup_and_renders_the_same_each_time():
    view = answer_view("# Title\n\n- a\n- b\n\n```python\nx = 1\n```")
    assert [field.name for field in dataclasses.fields(view)] == ["markup"]  # no parse tree
    assert _render(view) == _render(view)


def test_the_models_single_line_breaks_stay() -> None:
    text = _render(answer_view("Imports (2):\n• from a import b\n• from c import d\nDone."))
    assert [line.strip() for line in text.strip().splitlines()] == [
        "Imports (2):", "• from a import b", "• from c import d", "Done."]


def test_code_fences_are_left_alone() -> None:
    source = "look:\n```python\nx = 1\ny = 2\n```\nend"
    assert keep_breaks(source) == "look:\n```python\nx = 1\ny = 2\n```\nend"

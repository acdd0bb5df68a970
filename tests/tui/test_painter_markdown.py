"""The painter's Markdown (one shared parser) renders exactly as Rich's own Markdown."""

from __future__ import annotations

import re

from rich.console import Console
from rich.markdown import Markdown

from spark_cli.tui.painter import _markdown

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
        ours = _render(_markdown(source))
        theirs = _render(Markdown(source, code_theme="ansi_dark", inline_code_theme="ansi_dark"))
        assert ours == theirs, source


def test_the_parser_is_built_once():
    first = _markdown("a")
    second = _markdown("b")
    assert type(first) is type(second)  # one class, built once, holding the one parser

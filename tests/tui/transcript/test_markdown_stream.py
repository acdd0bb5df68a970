"""MarkdownStream: streamed Markdown in, per-frame paint operations out."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from spark_cli.tui.transcript.markdown_stream import MarkdownStream

TEXT = "Intro line\nsecond line\n\n```python\ndef f():\n    return 1\n```\n# Head\nafter"


def _run(chunks: list[str]) -> tuple[list[tuple[str, str]], str]:
    stream = MarkdownStream()
    ops: list[tuple[str, str]] = []
    for chunk in chunks:
        stream.feed(chunk)
        ops += stream.take()
    partial = stream.partial
    ops += stream.finish()
    return ops, partial


def test_blocks_close_on_blank_lines_fences_and_headings() -> None:
    ops, partial = _run([TEXT])
    blocks = [text for kind, text in ops if kind == "block"]
    assert blocks == ["Intro line\nsecond line", "```python\ndef f():\n    return 1\n```",
                      "# Head", "after"]
    assert partial == "after"


def test_open_lines_are_shown_plain_before_their_block_closes() -> None:
    stream = MarkdownStream()
    stream.feed("```py\nx = 1\ny = 2\n")
    assert stream.take() == [("line", "```py"), ("line", "x = 1"), ("line", "y = 2")]
    stream.feed("z")
    assert stream.take() == [] and stream.partial == "z"


def test_a_fence_is_not_closed_by_a_shorter_or_annotated_marker() -> None:
    ops, _ = _run(["````md\n```\ninner\n```\n````\n"])
    assert [t for k, t in ops if k == "block"] == ["````md\n```\ninner\n```\n````"]


def test_seal_closes_an_open_fence_and_the_rest_stays_code() -> None:
    stream = MarkdownStream()
    stream.feed("```py\nx = 1\n")
    stream.take()
    assert stream.seal() == "```py\nx = 1\n```"
    assert stream.seal() is None  # nothing new since
    stream.feed("y = 2\n```\n")
    ops = stream.take()
    assert ops[-1] == ("block", "```py\ny = 2\n```")


def test_nothing_pending_means_no_work() -> None:
    stream = MarkdownStream()
    assert not stream.pending and stream.take() == []
    stream.feed("a")
    assert stream.pending


@given(st.text(alphabet="ab `#\n", max_size=200), st.integers(1, 7))
def test_chunking_never_changes_the_result(text: str, size: int) -> None:
    whole = _run([text])[0]
    pieces = _run([text[i:i + size] for i in range(0, len(text), size)])[0]
    assert [t for k, t in pieces if k == "block"] == [t for k, t in whole if k == "block"]

"""MarkdownStream.taken: the characters handed to the screen so far (read by the bench)."""

from __future__ import annotations

from spark_cli.tui.transcript.markdown_stream import MarkdownStream


def test_taken_counts_what_take_and_finish_hand_out():
    stream = MarkdownStream()
    stream.feed("hello ")
    stream.feed("wor")
    assert stream.taken == 0  # fed, not yet on screen
    stream.take()
    assert stream.taken == len("hello wor")
    stream.feed("ld\n\nnext")
    stream.finish()
    assert stream.taken == len("hello world\n\nnext")
    assert stream.take() == [] and stream.taken == len("hello world\n\nnext")

"""The live prefill line: rewritten on a terminal and erased at the first token; sparse lines
in a log."""

from __future__ import annotations

import asyncio
import io

from spark_cli.cli.edit.prefill_timer import PrefillTimer, prefill_line


def test_the_line_says_seconds_and_tokens() -> None:
    assert prefill_line(12.4, 5800) == "prefill 12 s, 5.8k tokens"
    assert prefill_line(0.2, 800) == "prefill 0 s, 800 tokens"


async def test_a_terminal_line_is_erased_at_the_first_token() -> None:
    out = io.StringIO()
    timer = PrefillTimer(out, 5800, tty=True)
    timer.start(0.0)  # long ago on perf_counter: the first tick shows a large figure
    timer._tick()
    assert out.getvalue().startswith("\r\x1b[2K… prefill ")
    assert out.getvalue().endswith(" s, 5.8k tokens")
    timer.stop()
    assert out.getvalue().endswith("\r\x1b[2K")
    timer._tick()  # stopped: nothing more
    assert out.getvalue().endswith("\r\x1b[2K")


async def test_a_log_gets_whole_lines_and_nothing_before_the_first_is_due() -> None:
    out = io.StringIO()
    timer = PrefillTimer(out, 300, tty=False)
    timer.start(asyncio.get_running_loop().time())
    timer.stop()  # the first token came quickly: no line at all
    assert out.getvalue() == ""
    timer = PrefillTimer(out, 300, tty=False)
    timer.start(0.0)
    timer._tick()
    timer.stop()
    assert out.getvalue().startswith("… prefill ") and out.getvalue().endswith(" tokens\n")

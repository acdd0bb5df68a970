"""fast_esc: ESCDELAY in force although textual.constants was imported first, and the driver's
input loop working with Textual's own parser and message path (an upgrade that moves them
fails here)."""

from __future__ import annotations

import os
import selectors
import threading
from codecs import getincrementaldecoder
from collections.abc import Iterator

import pytest
from textual import constants, events
from textual._xterm_parser import XTermParser
from waiting import wait_until

from spark_cli.tui.tuning.fast_esc import (
    _IDLE_TIMEOUT,
    SPARK_ESCDELAY_MS,
    FastEscDriver,
    escape_delay_s,
    set_escape_delay,
)


@pytest.fixture
def restore_delay():
    before = constants.ESCAPE_DELAY
    yield
    constants.ESCAPE_DELAY = before  # type: ignore[misc]


def test_our_default_is_in_force(monkeypatch, restore_delay):
    monkeypatch.delenv("ESCDELAY", raising=False)
    set_escape_delay()
    assert int(SPARK_ESCDELAY_MS) / 1000 == constants.ESCAPE_DELAY


def test_the_users_choice_wins(monkeypatch, restore_delay):
    monkeypatch.setenv("ESCDELAY", "40")
    set_escape_delay()
    assert constants.ESCAPE_DELAY == 0.04


def test_bad_values_read_as_textual_reads_them():
    assert escape_delay_s("nope") == 0.1
    assert escape_delay_s("0") == 0.001
    assert escape_delay_s("25") == 0.025


class _App:
    """What the driver posts to: Textual's ``Driver.send_message`` awaits ``_post_message``."""

    def __init__(self) -> None:
        self.keys: list[str] = []

    async def _post_message(self, message: object) -> bool:
        if isinstance(message, events.Key):
            self.keys.append(message.key)
        return True


@pytest.fixture
def pipe() -> Iterator[tuple[int, int]]:
    read, write = os.pipe()
    yield read, write
    os.close(read)
    os.close(write)


async def test_the_driver_reads_keys_a_sequence_and_a_lone_esc_through_textuals_parser(
        pipe: tuple[int, int]) -> None:
    """Runs the input loop over a pipe as Textual runs it over stdin: a Textual upgrade that
    moves the parser, the driver's fields or its message path fails here."""
    app = _App()
    driver = FastEscDriver(app)  # type: ignore[arg-type]
    driver.fileno = pipe[0]
    thread = threading.Thread(target=driver.run_input_thread, daemon=True)
    thread.start()
    try:
        os.write(pipe[1], b"a\x1b[A")
        await wait_until(lambda: app.keys == ["a", "up"], what=lambda: str(app.keys))
        os.write(pipe[1], b"\x1b")  # nothing follows: the pending Esc is let go on its own
        await wait_until(lambda: app.keys[2:] == ["escape"], what=lambda: str(app.keys))
    finally:
        driver.exit_event.set()
        os.write(pipe[1], b"b")
        thread.join(20)
    assert not thread.is_alive()


async def test_an_open_escape_shortens_the_next_wait_to_escdelay(pipe: tuple[int, int]) -> None:
    driver = FastEscDriver(_App())  # type: ignore[arg-type]
    driver.fileno = pipe[0]
    parser = XTermParser()
    decode = getincrementaldecoder("utf-8")().decode
    selector = selectors.SelectSelector()
    selector.register(pipe[0], selectors.EVENT_READ)
    try:
        os.write(pipe[1], b"x\x1b")
        assert driver._pump(selector.select(1), parser, decode, 0.027) == 0.027
        os.write(pipe[1], b"[B")
        assert driver._pump(selector.select(1), parser, decode, 0.027) == _IDLE_TIMEOUT
    finally:
        selector.close()

"""set_escape_delay puts ESCDELAY in force although textual.constants was imported first."""

from __future__ import annotations

import pytest
from textual import constants

from spark_cli.tui.tuning.fast_esc import SPARK_ESCDELAY_MS, escape_delay_s, set_escape_delay


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

"""set_screen_rate: spark's screen update rate is in force although textual was imported
first, down to a screen's update timer; a user's TEXTUAL_FPS wins; a bad value reads as
Textual reads it."""

from __future__ import annotations

import os

import pytest
from textual import constants, screen
from textual.app import App

from spark_cli.tui.tuning.screen_rate import SPARK_FPS, set_screen_rate


@pytest.fixture
def restore_rate():
    before = constants.MAX_FPS, screen.UPDATE_PERIOD
    yield
    constants.MAX_FPS, screen.UPDATE_PERIOD = before  # type: ignore[misc]


def test_our_default_is_in_force(monkeypatch, restore_rate):
    monkeypatch.delenv("TEXTUAL_FPS", raising=False)
    fps = int(SPARK_FPS)
    assert set_screen_rate() == fps
    assert (fps, 1 / fps) == (constants.MAX_FPS, screen.UPDATE_PERIOD)
    assert "TEXTUAL_FPS" not in os.environ  # children (a /test run) see the user's own


def test_the_users_choice_wins(monkeypatch, restore_rate):
    monkeypatch.setenv("TEXTUAL_FPS", "60")
    assert set_screen_rate() == 60
    assert (constants.MAX_FPS, screen.UPDATE_PERIOD) == (60, 1 / 60)


@pytest.mark.parametrize(("value", "fps"), [("fast", 60), ("0", 1), ("-5", 1)])
def test_bad_values_read_as_textual_reads_them(monkeypatch, restore_rate, value, fps):
    monkeypatch.setenv("TEXTUAL_FPS", value)
    assert set_screen_rate() == fps


async def test_a_screen_updates_at_the_rate(monkeypatch, restore_rate):
    # the patch sets Textual's module globals: an upgrade that stops reading them fails here
    monkeypatch.setenv("TEXTUAL_FPS", "250")
    set_screen_rate()
    async with App().run_test() as pilot:
        assert pilot.app.screen._update_timer._interval == 1 / 250

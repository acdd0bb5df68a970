"""An overflow answer teaches the window and the server's count of spark's text."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.protocol.channel import ChannelError, Overflow
from spark_cli.session.config.settings import load_settings
from spark_cli.session.window.learning import LEARNED_NOW, MARGIN, learn


def _settings(tmp_path: Path):
    return load_settings(tmp_path, {"provider": "openai-compatible", "model": "m",
                                    "base_url": "http://127.0.0.1:9/v1"},
                         {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})


def test_the_window_and_the_ratio_are_learned(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    error = ChannelError("context_length", "too long", overflow=Overflow(9510, 8192))
    learned = learn(settings, error, 7000)
    assert learned is not None
    assert (learned.context_window, learned.max_output_tokens) == (8192, 2048)
    assert learned.sources["context_window"] == LEARNED_NOW
    assert learned.token_scale == pytest.approx(9510 / 7000 * MARGIN, abs=1e-3)


def test_other_failures_teach_nothing(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    assert learn(settings, None, 10) is None
    assert learn(settings, ChannelError("timeout", "slow"), 10) is None
    assert learn(settings, ChannelError("context_length", "x", overflow=Overflow(None, None)),
                 10) is None

"""Routing help (suggest_deep), value in / value out."""

from __future__ import annotations

import pytest

from spark_cli.session.deep.routing import suggest_deep


@pytest.mark.parametrize("prompt", [
    "fix the off-by-one in app.py",
    "rename total to grand_total",
    "why does main.py crash on empty input?",
    "/deep refactor everything across the repo",
    "",
])
def test_fast_work_gets_no_tip(prompt: str) -> None:
    assert suggest_deep(prompt, 2_000, 128_000) is None


def test_many_files_named() -> None:
    tip = suggest_deep("update a.py, b.py, src/c.py and docs/d.md for the new flag", None,
                       128_000)
    assert tip == ("tip: it names 4 files; /deep update a.py, b.py, src/c.py and docs/d.… "
                   "hands it to the deep model in the background")


@pytest.mark.parametrize(("prompt", "words"), [
    ("refactor the error handling across the package", "refactor the error handling across"),
    ("migrate the tests from unittest to pytest", "migrate"),
    ("Redesign the plugin API", "Redesign"),
    ("use pathlib throughout the codebase", "throughout the"),
])
def test_broad_words(prompt: str, words: str) -> None:
    tip = suggest_deep(prompt, None, 128_000)
    assert tip is not None and f"“{words}” sounds like work across the code" in tip


def test_context_bigger_than_the_fast_window_holds_comfortably() -> None:
    tip = suggest_deep("explain this", 100_000, 128_000)
    assert tip is not None
    assert "its context (100,000 tokens) would fill 78% of the fast model's 128,000-token" in tip
    assert suggest_deep("explain this", 70_000, 128_000) is None

"""Routing help (suggest_deep) and the files a deep request carries, value in / value out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from spark_cli.session.deep.routing import suggest_deep
from spark_cli.session.deep.task_files import choose_files, code_names, named_files


@dataclass
class Report:
    tokens: int


@pytest.mark.parametrize("prompt", [
    "fix the off-by-one in app.py",
    "rename total to grand_total",
    "why does main.py crash on empty input?",
    "/deep refactor everything across the repo",
    "",
])
def test_fast_work_gets_no_tip(prompt: str) -> None:
    assert suggest_deep(prompt, Report(2_000), 128_000) is None


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
    tip = suggest_deep("explain this", Report(100_000), 128_000)
    assert tip is not None
    assert "its context (100,000 tokens) would fill 78% of the fast model's 128,000-token" in tip
    assert suggest_deep("explain this", Report(70_000), 128_000) is None


def test_named_files_and_code_names(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("x\n")
    (tmp_path / "b.py").write_text("y\n")
    assert named_files("move src/app.py helpers into b.py and c.py", tmp_path) == [
        "src/app.py", "b.py"]
    assert code_names("rename `parse` to load_config in LoadThing") == [
        "parse", "load_config", "LoadThing"]


def test_choose_files_falls_back_to_files_mentioning_the_names(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("def load_config(): ...\n")
    (tmp_path / "b.py").write_text("from a import load_config\n")
    (tmp_path / "c.py").write_text("print('other')\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git" / "x").write_text("load_config\n")
    (tmp_path / "bin").write_bytes(b"\0load_config")
    assert choose_files("rename load_config to read", tmp_path, [], [], 10_000) == [
        "a.py", "b.py"]
    assert choose_files("rename load_config in c.py", tmp_path, ["b.py"], [], 10_000) == [
        "b.py", "c.py"]
    # over the budget: the first file still goes, the rest must fit
    assert choose_files("rename load_config to read", tmp_path, [], [], 1) == ["a.py"]

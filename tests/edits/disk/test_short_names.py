"""Shortened paths: shown files first, then a bounded walk skipping hidden and vendored dirs."""

from __future__ import annotations

from pathlib import Path

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.disk.paths import expand_short_name
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.edits.model.outcome import EditApplied, RefusedEdit


def _touch(root: Path, rel: str, text: str = "x = 1\n") -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_suffix_on_a_slash_boundary_only(tmp_path) -> None:
    _touch(tmp_path, "src/io_utils.py")
    _touch(tmp_path, "src/my_io_utils.py")
    assert expand_short_name(tmp_path, "io_utils.py") == ["src/io_utils.py"]


def test_hidden_and_vendored_dirs_are_not_searched(tmp_path) -> None:
    _touch(tmp_path, ".venv/lib/app.py")
    _touch(tmp_path, "node_modules/pkg/app.py")
    _touch(tmp_path, "src/app.py")
    assert expand_short_name(tmp_path, "app.py") == ["src/app.py"]


def test_shown_files_win_over_the_tree(tmp_path) -> None:
    _touch(tmp_path, "a/conf.py")
    _touch(tmp_path, "b/conf.py")
    assert expand_short_name(tmp_path, "conf.py", ["b/conf.py", "README.md"]) == ["b/conf.py"]
    assert expand_short_name(tmp_path, "conf.py") == ["a/conf.py", "b/conf.py"]


def _edit(path: str) -> FileEdit:
    return FileEdit("update", path, (Hunk("x = 1\n", "x = 2\n"),), fmt="search_replace")


def test_applier_takes_the_shown_file_and_says_so(tmp_path) -> None:
    _touch(tmp_path, "a/conf.py")
    _touch(tmp_path, "b/conf.py")
    applier = Applier(tmp_path, seen={"b/conf.py": "x = 1\n"})
    outcome = applier.apply(_edit("conf.py"))
    assert isinstance(outcome, EditApplied), outcome
    assert outcome.path == "b/conf.py" and "taken as b/conf.py" in outcome.note
    assert (tmp_path / "b/conf.py").read_text() == "x = 2\n"
    assert (tmp_path / "a/conf.py").read_text() == "x = 1\n"


def test_no_candidate_keeps_the_create_hint(tmp_path) -> None:
    outcome = Applier(tmp_path).apply(_edit("nowhere.py"))
    assert isinstance(outcome, RefusedEdit)
    assert "use an empty SEARCH section to create it" in outcome.message

"""Confinement exactly like edits, and the .gitignore gate: through all three tools."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from spark_cli.tools import ToolResult
from spark_cli.tools.run import run_tool

SECRET = "TOP-SECRET-OUTSIDE"


def _call(root: Path, name: str, readable: tuple[str, ...] = (), **args: object) -> ToolResult:
    return run_tool(root, name, json.dumps(args), readable=readable)


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(f"{SECRET}\n")
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("print('hi')\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("[core] GIT-SECRET\n")
    (root / ".spark").mkdir()
    (root / ".spark" / "journal").write_text("SPARK-SECRET\n")
    (root / "file_link").symlink_to(outside / "secret.txt")
    (root / "dir_link").symlink_to(outside)
    (root / "git_link").symlink_to(root / ".git")
    (root / "inner_link.py").symlink_to(root / "src" / "app.py")
    return root


@pytest.mark.parametrize(("path", "needle"), [
    ("../outside/secret.txt", "'..'"),
    ("src/../../outside/secret.txt", "'..'"),
    ("file_link", "symlink"),
    ("dir_link/secret.txt", "symlink"),
    (".git/config", ".git/"),
    ("src/../.git/config", ".git/"),
    (".spark/journal", ".spark/"),
    ("git_link/config", ".git/"),
    ("C:\\Windows\\win.ini", "absolute"),
])
def test_read_file_refuses_escapes(repo: Path, path: str, needle: str) -> None:
    got = _call(repo, "read_file", path=path)
    assert not got.ok and needle in got.output
    assert "SECRET" not in got.output


def test_absolute_paths_inside_are_taken_relative_outside_refused(repo: Path) -> None:
    inside = _call(repo, "read_file", path=str(repo / "src" / "app.py"))
    assert inside.ok and inside.summary == "src/app.py 1–1 of 1"
    outside = _call(repo, "read_file", path=str(repo.parent / "outside" / "secret.txt"))
    assert not outside.ok and "absolute" in outside.output
    assert not _call(repo, "read_file", path="/etc/passwd").ok


def test_a_symlink_inside_the_repo_is_followed(repo: Path) -> None:
    assert _call(repo, "read_file", path="inner_link.py").output == "     1\tprint('hi')"


@pytest.mark.parametrize("path", ["dir_link", "git_link", ".git", "..", "/"])
def test_list_and_search_refuse_escaping_folders(repo: Path, path: str) -> None:
    for name, extra in (("list_files", {}), ("search", {"pattern": "SECRET"})):
        got = _call(repo, name, path=path, **extra)
        assert not got.ok and got.summary == "error: path refused", (name, path, got)


def test_walks_never_show_git_spark_or_symlinks(repo: Path) -> None:
    listed = _call(repo, "list_files")
    assert listed.output == "src/app.py"
    assert _call(repo, "search", pattern="SECRET").output == "no matches"


@pytest.fixture
def ignoring(make_repo) -> Path:
    return make_repo({
        ".gitignore": "*.env\nbuild/\n",
        "src/.gitignore": "local_*.py\n",
        "app.py": "KEY = 1\n",
        "prod.env": "KEY=hidden\n",
        "build/out.py": "KEY = 2\n",
        "src/local_x.py": "KEY = 3\n",
        "src/ok.py": "KEY = 4\n",
    })


@pytest.mark.parametrize("path", ["prod.env", "build/out.py", "src/local_x.py"])
def test_ignored_files_are_unreadable(ignoring: Path, path: str) -> None:
    got = _call(ignoring, "read_file", path=path)
    assert got == ToolResult(False, f"{path} is ignored by .gitignore; tools read ignored files "
                             "only when the user names or adds them",
                             "error: ignored by .gitignore")


def test_ignored_files_are_neither_listed_nor_searched(ignoring: Path) -> None:
    assert _call(ignoring, "list_files").output == ".gitignore\napp.py\nsrc/.gitignore\nsrc/ok.py"
    assert _call(ignoring, "search", pattern="KEY").output == (
        "app.py:1:KEY = 1\nsrc/ok.py:1:KEY = 4")
    assert not _call(ignoring, "list_files", path="build").ok


def test_files_the_user_named_are_readable_listed_and_searched(ignoring: Path) -> None:
    named = ("prod.env", "./build/out.py")
    assert _call(ignoring, "read_file", named, path="prod.env").output == "     1\tKEY=hidden"
    assert _call(ignoring, "read_file", named, path="build/out.py").ok
    assert _call(ignoring, "read_file", named, path="src/local_x.py").summary == (
        "error: ignored by .gitignore")
    assert "prod.env" in _call(ignoring, "list_files", named).output.split("\n")
    found = _call(ignoring, "search", named, pattern="KEY").output.split("\n")
    assert "prod.env:1:KEY=hidden" in found and "build/out.py:1:KEY = 2" in found


def test_a_named_folder_makes_what_is_below_it_readable(ignoring: Path) -> None:
    assert _call(ignoring, "read_file", ("build",), path="build/out.py").ok


def test_a_link_to_an_ignored_file_is_gated_too(ignoring: Path) -> None:
    (ignoring / "alias.txt").symlink_to(ignoring / "prod.env")
    assert _call(ignoring, "read_file", path="alias.txt").summary == (
        "error: ignored by .gitignore")
    assert _call(ignoring, "read_file", ("prod.env",), path="alias.txt").ok


def test_a_path_that_is_not_unicode(make_repo) -> None:
    root = make_repo({"a.py": ""})
    for name in ("read_file", "list_files"):
        got = run_tool(root, name, '{"path": "a\\ud800.py"}')
        assert got == ToolResult(False, "path is not valid Unicode text (a lone surrogate)",
                                 "error: path refused")


def test_a_fifo_is_refused_not_opened(make_repo) -> None:
    root = make_repo({"a.py": ""})
    os.mkfifo(root / "pipe")
    got = _call(root, "read_file", path="pipe")
    assert got == ToolResult(False, "pipe is not a regular file", "error: not a regular file")

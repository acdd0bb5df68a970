"""Repo confinement: everything that could escape the root is refused."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk.paths import confine
from spark_cli.edits.model.outcome import FileRefused


@pytest.mark.parametrize("raw", ["a.py", "src/a.py", "./src/../a.py", "new/dir/file.txt",
                                 " spaced.py "])
def test_ordinary_paths(tmp_path, raw) -> None:
    got = confine(tmp_path, raw)
    assert got.path.is_relative_to(os.path.realpath(tmp_path))
    assert not got.rel.startswith("..")


@pytest.mark.parametrize(("raw", "needle"), [
    ("/etc/passwd", "absolute"),
    ("C:/x.py", "absolute"),
    ("//server/share", "absolute"),
    ("../x.py", "'..'"),
    ("a/../../x.py", "'..'"),
    (".git/config", ".git/"),
    ("sub/.git/hooks/pre-commit", ".git/"),
    (".spark/undo/x", ".spark/"),
    ("", "empty"),
    (".", "directory"),
    ("a\x00b", "NUL"),
])
def test_refused(tmp_path, raw, needle) -> None:
    with pytest.raises(FileRefused) as info:
        confine(tmp_path, raw)
    assert needle in info.value.message


def test_symlink_out_refused(tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    root = tmp_path / "repo"
    root.mkdir()
    (root / "link").symlink_to(outside)
    (root / "filelink").symlink_to(outside / "f.txt")
    for raw in ("link/x.py", "filelink"):
        with pytest.raises(FileRefused, match="symlink"):
            confine(root, raw)


def test_symlink_inside_allowed(tmp_path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "alias").symlink_to(tmp_path / "real")
    got = confine(tmp_path, "alias/x.py")
    assert got.rel == "alias/x.py"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["..", ".", "a", "b", "", ".git", "x.py", "/"]), max_size=6))
def test_never_escapes(tmp_path_factory, parts) -> None:
    root = tmp_path_factory.mktemp("root")
    raw = "/".join(parts)
    try:
        got = confine(root, raw)
    except FileRefused:
        return
    real_root = os.path.realpath(root)
    assert os.path.realpath(got.path).startswith(real_root + os.sep)
    assert ".git" not in got.rel.split("/")


def test_backslashes_are_separators(tmp_path) -> None:
    assert confine(tmp_path, "src\\app.py").rel == "src/app.py"
    with pytest.raises(FileRefused, match="leads outside"):
        confine(tmp_path, "..\\..\\etc\\passwd")


def test_an_absolute_path_inside_the_root_is_made_relative(tmp_path) -> None:
    (tmp_path / "src").mkdir()
    got = confine(tmp_path, f"{tmp_path}/src/a.py")
    assert got.rel == "src/a.py"
    assert confine(tmp_path, os.path.realpath(tmp_path) + "/b.py").rel == "b.py"
    for raw in (f"{tmp_path}/../x.py", str(tmp_path), f"{tmp_path}x/a.py",
                f"{tmp_path}/.git/config"):
        with pytest.raises(FileRefused):
            confine(tmp_path, raw)

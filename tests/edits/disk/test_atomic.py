"""Atomic writes: whole new content, mode kept, no temp files left behind."""

from __future__ import annotations

import os

import pytest

from spark_cli.edits.disk.atomic import remove_file, write_atomic


def test_write_replaces_and_keeps_mode(tmp_path) -> None:
    path = tmp_path / "x.sh"
    path.write_bytes(b"old")
    path.chmod(0o750)
    write_atomic(path, b"new")
    assert path.read_bytes() == b"new"
    assert path.stat().st_mode & 0o777 == 0o750
    assert os.listdir(tmp_path) == ["x.sh"]


def test_explicit_mode_and_parents(tmp_path) -> None:
    path = tmp_path / "a" / "b" / "c.txt"
    write_atomic(path, b"x", 0o640)
    assert path.read_bytes() == b"x"
    assert path.stat().st_mode & 0o777 == 0o640


def test_write_through_symlink_replaces_target(tmp_path) -> None:
    target = tmp_path / "real.txt"
    target.write_bytes(b"old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomic(link, b"new")
    assert link.is_symlink()
    assert target.read_bytes() == b"new"


def test_failed_write_leaves_old_file_and_no_temp(tmp_path, monkeypatch) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"old")

    def boom(*_args) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(path, b"new")
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["x.txt"]


def test_remove(tmp_path) -> None:
    path = tmp_path / "x.txt"
    path.write_bytes(b"x")
    remove_file(path)
    assert not path.exists()

"""The tags index: parsed once, re-read only when (mtime, size) changes, shared via disk."""

from __future__ import annotations

import os
from pathlib import Path

from spark_cli.session.context.index import RepoIndex


def _repo(root: Path) -> Path:
    (root / "a.py").write_text("def alpha():\n    return beta()\n")
    (root / "b.py").write_text("def beta():\n    return 1\n")
    (root / "notes.bin.py").write_bytes(b"\x00\x01binary")
    return root


def test_second_refresh_parses_nothing_and_a_change_parses_one(tmp_path: Path) -> None:
    index = RepoIndex(_repo(tmp_path))
    assert index.refresh() == 3 and len(index.tags) == 3
    assert [d.name for d in index.tags["a.py"].definitions] == ["alpha"]
    assert index.tags["notes.bin.py"].definitions == ()  # unreadable: remembered as empty
    version = index.version
    assert index.refresh() == 0 and index.version == version
    (tmp_path / "b.py").write_text("def beta_two():\n    return 22\n")
    assert index.refresh() == 1 and index.version == version + 1
    assert index.definers()["beta_two"] == ["b.py"] and "beta" not in index.definers()
    assert index.mentioning("beta") == ["a.py"]


def test_a_new_process_reads_the_disk_cache(tmp_path: Path) -> None:
    RepoIndex(_repo(tmp_path)).refresh()
    assert (tmp_path / ".spark" / ".gitignore").read_text() == "*\n"
    fresh = RepoIndex(tmp_path)
    assert fresh.refresh() == 0  # all from the disk cache
    assert [d.signature for d in fresh.tags["b.py"].definitions] == ["def beta():"]
    assert fresh.tags["a.py"].references == {"beta": 1}


def test_same_size_edit_with_a_new_mtime_is_reparsed(tmp_path: Path) -> None:
    index = RepoIndex(_repo(tmp_path))
    index.refresh()
    path = tmp_path / "b.py"
    path.write_text("def gamma():\n    return 1\n")  # same length as before
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert index.refresh() == 1 and "gamma" in index.definers()


def test_a_corrupt_cache_is_ignored_and_rewritten(tmp_path: Path) -> None:
    _repo(tmp_path)
    cache = tmp_path / ".spark" / "cache" / "tags.json"
    cache.parent.mkdir(parents=True)
    for junk in ("not json", '{"version": 3, "files": {"a.py": [1]}}', "[]"):
        cache.write_text(junk)
        assert RepoIndex(tmp_path).refresh() == 3
    assert RepoIndex(tmp_path).refresh() == 0


def test_without_disk_cache_nothing_is_written(tmp_path: Path) -> None:
    RepoIndex(_repo(tmp_path), disk_cache=False).refresh()
    assert not (tmp_path / ".spark").exists()


def test_a_time_boxed_refresh_leaves_the_rest_pending_and_still_finds_mentions(
        tmp_path: Path) -> None:
    (tmp_path / "far").mkdir()
    (tmp_path / "near").mkdir()
    for i in range(5):
        (tmp_path / "far" / f"f{i}.py").write_text(f"def far_{i}():\n    return use_me()\n")
    (tmp_path / "near" / "home.py").write_text("def use_me():\n    return 1\n")
    (tmp_path / "near" / "peer.py").write_text("def peer():\n    return 2\n")
    index = RepoIndex(tmp_path)
    index.refresh(seconds=0.0, first=["near/home.py"])  # the deadline passes after one file
    assert set(index.tags) == {"near/home.py"}  # the sent file's folder goes first
    assert len(index.pending) == 6
    assert index.mentioning("use_me") == [f"far/f{i}.py" for i in range(5)] + ["near/home.py"]
    assert "peer" not in index.definers()
    index.refresh()
    assert index.pending == [] and len(index.tags) == 7 and "peer" in index.definers()


def test_a_file_rewritten_unchanged_keeps_its_tags_unparsed_in_this_and_the_next_process(
        tmp_path: Path) -> None:
    index = RepoIndex(_repo(tmp_path))
    index.refresh()
    version = index.version
    path = tmp_path / "a.py"
    path.write_text(path.read_text())  # a tool rewrote it: new mtime, same content
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert index.refresh() == 0 and index.version == version  # nothing to re-rank
    assert [d.name for d in index.tags["a.py"].definitions] == ["alpha"]
    assert RepoIndex(tmp_path).refresh() == 0  # the new stamp was saved: not even re-read
    path.write_text("def alpha():\n    return gamma()\n")  # same size, new content
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 2_000_000))
    assert index.refresh() == 1 and index.tags["a.py"].references == {"gamma": 1}


def test_a_cache_of_the_previous_shape_is_rebuilt(tmp_path: Path) -> None:
    RepoIndex(_repo(tmp_path)).refresh()
    cache = tmp_path / ".spark" / "cache" / "tags.json"
    cache.write_text('{"version": 3, "files": {"a.py": [1, 2, [], "", " "]}}')
    assert RepoIndex(tmp_path).refresh() == 3

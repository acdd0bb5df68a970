"""The journal keeps the newest KEEP_BATCHES batches, in `history`'s order, from folder names;
half-written batches, unreadable manifests and entries that are not batches never make a
turn's prune or an undo fail, nor delete what is not an old batch."""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk import journal
from spark_cli.edits.disk.journal import BatchInfo, Journal, history, undo

UNDO = ".spark/undo"  # the journal's folder in these tests


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _lay_out(root: Path, batch_id: str, when: float, rel: str = "a.txt",
             before: bytes = b"old", after: bytes = b"new") -> Path:
    """A batch folder as every version of the journal so far writes it (same names, same
    manifest), for one modified file."""
    folder = root / UNDO / batch_id
    (folder / "blobs").mkdir(parents=True)
    (folder / "blobs" / _sha(before)).write_bytes(before)
    manifest = {"id": batch_id, "time": when, "label": f"turn {batch_id}", "files": [
        {"path": rel, "before_hash": _sha(before), "before_mode": 0o644,
         "after_hash": _sha(after), "after_mode": 0o644}]}
    (folder / "batch.json").write_text(json.dumps(manifest, indent=1))
    return folder


def _turn(root: Path, rel: str = "b.txt") -> BatchInfo:
    """One real turn through the journal: record a change to ``rel``, write it, end."""
    path = root / rel
    before = path.read_bytes() if path.exists() else None
    new = (before or b"") + b"+"
    live = Journal(root, root / UNDO)
    live.begin("live")
    live.record(rel, before, None if before is None else 0o644, new, 0o644)
    path.write_bytes(new)
    batch = live.end()
    assert batch is not None
    return batch


def _folders(root: Path) -> set[str]:
    return {p.name for p in (root / UNDO).iterdir()}


def test_the_newest_are_kept_in_history_order_even_within_one_second(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "KEEP_BATCHES", 3)
    (tmp_path / "a.txt").write_bytes(b"new")
    _lay_out(tmp_path, "20260101T000001-aaaaaa", 1767225601.5)
    # begun in one second: the name order (random part) is not the time order
    _lay_out(tmp_path, "20260101T000007-000001", 1767225607.9)
    _lay_out(tmp_path, "20260101T000007-ffffff", 1767225607.1)
    _lay_out(tmp_path, "20260101T000007-cccccc", 1767225607.5)
    before = [b.id for b in history(tmp_path / UNDO)]
    assert before[:3] == ["20260101T000007-000001", "20260101T000007-cccccc",
                          "20260101T000007-ffffff"]
    live = _turn(tmp_path).id
    expected = [live, *before[:2]]
    assert [b.id for b in history(tmp_path / UNDO)] == expected
    assert _folders(tmp_path) == set(expected)
    undo(tmp_path, tmp_path / UNDO)
    # an old journal undoes too
    assert undo(tmp_path, tmp_path / UNDO).batch.id == "20260101T000007-000001"
    assert (tmp_path / "a.txt").read_bytes() == b"old"


def test_real_turns_in_quick_succession_keep_the_newest(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "KEEP_BATCHES", 2)
    made = [_turn(tmp_path) for _ in range(6)]  # most of these begin in the same second
    newest = sorted(made, key=lambda b: (b.time, b.id), reverse=True)[:2]
    assert [b.id for b in history(tmp_path / UNDO)] == [b.id for b in newest]
    assert _folders(tmp_path) == {b.id for b in newest}


BATCHES = st.lists(st.tuples(st.integers(0, 4), st.floats(0, 0.999), st.integers(0, 9)),
                   min_size=1, max_size=9, unique_by=lambda b: (b[0], b[2]))


@settings(max_examples=40, deadline=None)
@given(BATCHES, st.integers(1, 10))
def test_a_turn_prunes_what_sorting_every_manifest_would(batches, keep):
    """The rule before names were used (load every manifest, sort by (time, id), cut) is
    the oracle: a turn's prune deletes exactly those batches."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for second, fraction, n in batches:
            _lay_out(root, f"20260101T00000{second}-00000{n}", 1767225600 + second + fraction)
        oracle = [b.id for b in history(root / UNDO)][: keep - 1]
        saved = journal.KEEP_BATCHES
        journal.KEEP_BATCHES = keep
        try:
            live = _turn(root).id
        finally:
            journal.KEEP_BATCHES = saved
        assert [b.id for b in history(root / UNDO)] == [live, *oracle]
        assert _folders(root) == {live, *oracle}


def test_half_written_batches_count_while_new_and_go_when_old(tmp_path, monkeypatch):
    """A crash between a batch's folder and its first record leaves a folder with no
    manifest: it takes a place among the kept ones, is never undone, and is pruned once
    KEEP_BATCHES newer batches exist (before, it stayed for good)."""
    monkeypatch.setattr(journal, "KEEP_BATCHES", 3)
    (tmp_path / "a.txt").write_bytes(b"new")
    undo_root = tmp_path / UNDO
    (undo_root / "20260101T000001-000000" / "blobs").mkdir(parents=True)  # old, half-written
    _lay_out(tmp_path, "20260101T000002-000000", 1767225602.0)
    _lay_out(tmp_path, "20260101T000003-000000", 1767225603.0)
    newest_broken = undo_root / "29990101T000000-000000"  # half-written, newest by name
    (newest_broken / "blobs").mkdir(parents=True)
    (newest_broken / "blobs" / _sha(b"x")).write_bytes(b"x")
    live = _turn(tmp_path).id
    assert _folders(tmp_path) == {live, newest_broken.name, "20260101T000003-000000"}
    assert [b.id for b in history(tmp_path / UNDO)] == [live, "20260101T000003-000000"]
    assert undo(tmp_path, tmp_path / UNDO).batch.id == live
    assert undo(tmp_path, tmp_path / UNDO).batch.id == "20260101T000003-000000"
    assert (tmp_path / "a.txt").read_bytes() == b"old"
    assert newest_broken.is_dir()
    with pytest.raises(journal.UndoRefused, match="nothing to undo"):
        undo(tmp_path, tmp_path / UNDO)


@pytest.mark.parametrize("damage", ["garbage", "no files key", "a directory", "empty list"])
def test_an_unreadable_manifest_at_the_cut_goes_first(tmp_path, monkeypatch, damage):
    monkeypatch.setattr(journal, "KEEP_BATCHES", 3)
    _lay_out(tmp_path, "20260101T000005-000000", 1767225605.1)
    broken = _lay_out(tmp_path, "20260101T000005-ffffff", 1767225605.9) / "batch.json"
    if damage == "garbage":
        broken.write_text('{"id": "20260101T000005-ffffff", "time": ')
    elif damage == "no files key":
        broken.write_text('{"id": "20260101T000005-ffffff", "time": 1767225605.9}')
    elif damage == "a directory":
        broken.unlink()
        broken.mkdir()
    else:
        manifest = json.loads(broken.read_text())
        broken.write_text(json.dumps({**manifest, "files": []}))
    _lay_out(tmp_path, "20260101T000005-888888", 1767225605.5)
    live = _turn(tmp_path).id
    gone = "20260101T000005-000000" if damage == "empty list" else "20260101T000005-ffffff"
    assert gone not in _folders(tmp_path) and len(_folders(tmp_path)) == 3
    assert live in _folders(tmp_path) and "20260101T000005-888888" in _folders(tmp_path)
    assert undo(tmp_path, tmp_path / UNDO).batch.id == live


def test_entries_that_are_not_batches_are_never_touched(tmp_path, monkeypatch):
    monkeypatch.setattr(journal, "KEEP_BATCHES", 1)
    undo_root = tmp_path / UNDO
    _lay_out(tmp_path, "20260101T000001-000000", 1767225601.0)
    undo_root.joinpath("20260101T000000-aaaaaa").write_text("a file named like a batch")
    (tmp_path / "other").mkdir()
    elsewhere = _lay_out(tmp_path / "other", "20260101T000000-bbbbbb", 1767225600.0)
    undo_root.joinpath("20260101T000000-bbbbbb").symlink_to(elsewhere)
    undo_root.joinpath("notes").mkdir()
    undo_root.joinpath("20260101T000000-cccccc.tmp").write_text("")
    live = _turn(tmp_path).id
    assert _folders(tmp_path) == {live, "20260101T000000-aaaaaa", "20260101T000000-bbbbbb",
                                  "notes", "20260101T000000-cccccc.tmp"}
    assert (elsewhere / "batch.json").is_file() and (elsewhere / "blobs").is_dir()
    assert undo(tmp_path, tmp_path / UNDO).batch.id == live


def test_stale_temps_cleaning_lists_only_batches(tmp_path):
    """`clean_stale_temps` takes the newest batches from the same listing: a folder that is
    not a batch's (``notes`` sorts after every id) or a file named like one is not one."""
    _lay_out(tmp_path, "20260101T000001-000000", 1767225601.0, rel="sub/a.txt")
    undo_root = tmp_path / UNDO
    undo_root.joinpath("notes").mkdir()
    undo_root.joinpath("20260101T000009-aaaaaa").write_text("not a batch")
    (tmp_path / "sub").mkdir()
    stale = tmp_path / "sub" / ".a.txt.999999999.abcd.spark-tmp"
    stale.write_text("")
    os.utime(stale, (0, 0))  # a day old: stale whoever wrote it
    assert journal.clean_stale_temps(tmp_path, tmp_path / UNDO, batches=1) == [
        os.path.join("sub", stale.name)]
    assert not stale.exists()

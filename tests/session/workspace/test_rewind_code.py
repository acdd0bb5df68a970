"""Code rewind through the undo journal: every batch from a turn on, checked all-or-nothing,
written as one batch /undo takes back; files changed since, a lost copy, commands' files."""

from __future__ import annotations

import stat
import time
from pathlib import Path

import pytest

from spark_cli.edits.disk.journal import BatchInfo, Journal, history, undo
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.workspace.changes import BETWEEN, rewind_code, rewind_turns
from spark_cli.session.workspace.turns import TurnRecord

ORIGINAL = b"def total_price(items):\n    return sum(items)\n"
FIRST = b"def cart_total(items):\n    return sum(items)\n"
SECOND = b"def cart_total(items):\n    return sum(items) or 0\n"


def _batch(root: Path, label: str, changes: dict[str, bytes | None]) -> BatchInfo:
    """What a turn's applier does: record each file, then write it."""
    journal = Journal(root, undo_dir(root))
    journal.begin(label)
    for rel, after in changes.items():
        path = root / rel
        before = path.read_bytes() if path.exists() else None
        mode = stat.S_IMODE(path.stat().st_mode) if path.exists() else None
        journal.record(rel, before, mode, after, None if after is None else 0o644)
        if after is None:
            path.unlink()
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(after)
    batch = journal.end()
    assert batch is not None
    return batch


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Path, float, BatchInfo, BatchInfo]:
    """Two turns: the first renames in cart.py and adds notes.txt, the second edits cart.py."""
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cart.py").write_bytes(ORIGINAL)
    (root / "other.py").write_bytes(b"x = 1\n")
    since = time.time()
    first = _batch(root, "rename", {"cart.py": FIRST, "docs/notes.txt": b"renamed\n"})
    second = _batch(root, "or 0", {"cart.py": SECOND})
    return root, since, first, second


def test_rewind_to_the_first_turn_gives_the_original_bytes_back_as_one_undoable_batch(
        repo: tuple[Path, float, BatchInfo, BatchInfo]) -> None:
    root, since, first, second = repo
    report = rewind_code(root, since, [first.id, second.id], label="rewind to: rename")
    assert report.status == "rewound", report.message
    assert (root / "cart.py").read_bytes() == ORIGINAL
    assert not (root / "docs" / "notes.txt").exists()
    assert sorted(report.restored) == ["cart.py", "docs/notes.txt"]
    newest = history(undo_dir(root))[0]
    assert newest.id == report.batch_id and newest.label == "rewind to: rename"
    assert [b.id for b in history(undo_dir(root))[1:]] == [second.id, first.id]  # the turns' stay
    undo(root, undo_dir(root))  # the rewind is one batch: undo takes it back whole
    assert (root / "cart.py").read_bytes() == SECOND
    assert (root / "docs" / "notes.txt").read_bytes() == b"renamed\n"


def test_rewind_to_the_second_turn_keeps_the_first(
        repo: tuple[Path, float, BatchInfo, BatchInfo]) -> None:
    root, _, _, second = repo
    report = rewind_code(root, second.time, [second.id])
    assert report.status == "rewound" and report.restored == ("cart.py",)
    assert (root / "cart.py").read_bytes() == FIRST
    assert (root / "docs" / "notes.txt").exists()


def test_a_file_changed_since_is_named_and_nothing_is_written_unless_forced(
        repo: tuple[Path, float, BatchInfo, BatchInfo]) -> None:
    root, since, first, second = repo
    (root / "cart.py").write_bytes(b"# my own edit\n")
    before = len(history(undo_dir(root)))
    report = rewind_code(root, since, [first.id, second.id])
    assert report.status == "refused"
    assert [(f.path, f.reason) for f in report.refused] == [
        ("cart.py", "edited since spark's edit")]
    assert "cart.py" in report.message and "--force" in report.message
    assert (root / "cart.py").read_bytes() == b"# my own edit\n"
    assert (root / "docs" / "notes.txt").exists()  # all or nothing: the other file stays too
    assert len(history(undo_dir(root))) == before
    forced = rewind_code(root, since, [first.id, second.id], force=True)
    assert forced.status == "rewound"
    assert (root / "cart.py").read_bytes() == ORIGINAL
    undo(root, undo_dir(root), force=True)
    assert (root / "cart.py").read_bytes() == b"# my own edit\n"  # the forced rewind undoes too


def test_a_change_between_two_turns_batches_is_refused(tmp_path: Path) -> None:
    root = tmp_path
    (root / "cart.py").write_bytes(ORIGINAL)
    since = time.time()
    _batch(root, "one", {"cart.py": FIRST})
    (root / "cart.py").write_bytes(b"# a formatter ran\n" + FIRST)  # a command, between turns
    _batch(root, "two", {"cart.py": SECOND})
    report = rewind_code(root, since)
    assert report.status == "refused"
    assert [(f.path, f.reason) for f in report.refused] == [("cart.py", BETWEEN)]
    assert (root / "cart.py").read_bytes() == SECOND


def test_a_journal_missing_a_copy_is_a_clear_error_and_nothing_is_written(
        repo: tuple[Path, float, BatchInfo, BatchInfo]) -> None:
    root, since, first, second = repo
    blobs = [p for p in undo_dir(root).joinpath(first.id, "blobs").iterdir()]
    assert len(blobs) == 1
    blobs[0].unlink()
    report = rewind_code(root, since, [first.id, second.id])
    assert report.status == "refused"
    assert f"the journal's copy of cart.py from before batch {first.id} cannot be read" \
        in report.message and "nothing was written" in report.message
    assert (root / "cart.py").read_bytes() == SECOND
    assert (root / "docs" / "notes.txt").read_bytes() == b"renamed\n"
    assert [b.id for b in history(undo_dir(root))] == [second.id, first.id]


def test_files_commands_changed_are_listed_as_not_restorable(
        repo: tuple[Path, float, BatchInfo, BatchInfo]) -> None:
    root, since, first, second = repo
    turns = [TurnRecord("rename total_price", since, (), (first.id,), ("cart.py",),
                        ("build/out.txt",)),
             TurnRecord("add or 0", second.time, (), (second.id,), ("cart.py",),
                        ("build/out.txt", "dist/app.whl"))]
    report = rewind_turns(root, turns, 0)
    assert report.status == "rewound"
    assert report.not_restorable == ("build/out.txt", "dist/app.whl")
    assert history(undo_dir(root))[0].label == "rewind to: rename total_price"


def test_nothing_to_restore_says_so(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    report = rewind_code(tmp_path, time.time(), commands=["made.txt"])
    assert report.status == "nothing" and report.not_restorable == ("made.txt",)
    assert history(undo_dir(tmp_path)) == []

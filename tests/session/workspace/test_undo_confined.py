"""Undo restores only inside the repo: a forged journal entry (an absolute path, ``..``, a
symlink out, a malformed record, saved bytes that are not what their hash says) refuses the
whole batch, names the entry and leaves every file as it was (`spark undo`, `/undo`, Ctrl+Z),
and the journal lives in the user's state dir, not in the repo."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app
from spark_cli.edits.disk.journal import Journal
from spark_cli.session.config.state_dir import state_base, undo_dir
from spark_cli.session.workspace.changes import rewind_code, session_diff, undo_last_batch

EVIL = b"echo pwned\n"


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "a.py").write_bytes(b"before\n")
    journal = Journal(root, undo_dir(root))
    journal.begin("a real turn")
    journal.record("a.py", b"before\n", 0o644, b"after\n", 0o644)
    (root / "a.py").write_bytes(b"after\n")
    assert journal.end() is not None
    (tmp_path / "victim").write_bytes(b"the user's file\n")
    return root


def _forge(root: Path, **entry: Any) -> str:
    """Add ``entry`` (restoring ``EVIL`` over a file that now holds the user's bytes) to the
    newest batch, its blob beside the real ones; the batch id."""
    [folder] = list(undo_dir(root).iterdir())
    manifest = json.loads((folder / "batch.json").read_text())
    (folder / "blobs" / _sha(EVIL)).write_bytes(EVIL)
    manifest["files"].append({"before_hash": _sha(EVIL), "before_mode": 0o755,
                              "after_hash": _sha(b"the user's file\n"), "after_mode": 0o644,
                              **entry})
    (folder / "batch.json").write_text(json.dumps(manifest))
    return str(folder.name)


def _intact(root: Path) -> None:
    assert (root.parent / "victim").read_bytes() == b"the user's file\n"
    assert (root / "a.py").read_bytes() == b"after\n"  # the batch's sound entry waits too
    assert len(list(undo_dir(root).iterdir())) == 1  # the batch is kept, not consumed


def test_the_journal_is_in_the_state_dir_not_the_repo(repo: Path) -> None:
    assert not (repo / ".spark").exists()
    assert undo_dir(repo).is_relative_to(state_base())
    assert undo_last_batch(repo).status == "undone" and (repo / "a.py").read_bytes() == b"before\n"


@pytest.mark.parametrize(("path", "why"), [
    ("{outside}/victim", "absolute"),
    ("../victim", "'..'"),
    ("link/victim", "through a symlink"),
])
def test_an_entry_outside_the_repo_refuses_the_whole_batch(repo: Path, path: str,
                                                           why: str) -> None:
    (repo / "link").symlink_to(repo.parent)
    rel = path.format(outside=repo.parent)
    _forge(repo, path=rel)
    report = undo_last_batch(repo)
    assert report.status == "refused" and not report.restored
    assert repr(rel) in report.message and why in report.message
    _intact(repo)
    assert all(name != rel for name, _ in session_diff(repo))  # never shown as a diff either
    forced = undo_last_batch(repo, force=True)  # not even forced
    assert forced.status == "refused"
    _intact(repo)


@pytest.mark.parametrize(("entry", "why"), [
    ({"path": "b.py", "before_hash": "0" * 63}, "before_hash is not a SHA-256"),
    ({"path": "b.py", "before_mode": "rwxrwxrwx"}, "before_mode is not a file mode"),
    ({"path": 7}, "not a file name"),
    ({"path": "b.py", "before_hash": _sha(b"something else")}, "cannot be read"),
])
def test_a_malformed_entry_refuses_the_whole_batch(repo: Path, entry: dict[str, Any],
                                                   why: str) -> None:
    (repo / "b.py").write_bytes(b"the user's file\n")
    _forge(repo, **entry)
    report = undo_last_batch(repo)
    assert report.status == "refused" and why in report.message, report.message
    _intact(repo)
    assert (repo / "b.py").read_bytes() == b"the user's file\n"


def test_saved_bytes_that_do_not_match_their_hash_are_refused(repo: Path) -> None:
    [folder] = list(undo_dir(repo).iterdir())
    (folder / "blobs" / _sha(b"before\n")).write_bytes(EVIL)  # swapped behind the hash
    report = undo_last_batch(repo)
    assert report.status == "refused" and "'a.py'" in report.message
    assert "does not match its hash" in report.message
    assert (repo / "a.py").read_bytes() == b"after\n"


def test_spark_undo_refuses_naming_the_entry(repo: Path) -> None:
    _forge(repo, path="../victim")
    result = CliRunner().invoke(app, ["undo", "--root", str(repo)])
    assert result.exit_code == 1
    assert "'../victim'" in result.output and "nothing was restored" in result.output
    _intact(repo)


def test_rewind_refuses_an_entry_outside_the_repo_too(repo: Path) -> None:
    _forge(repo, path="../victim")
    done = rewind_code(repo, 0.0, force=True)
    assert done.status == "refused" and "'../victim'" in done.message
    _intact(repo)

"""Applier: all-or-nothing sections, refusals that say why, conflicts, batches."""

from __future__ import annotations

import json
import os

import pytest
from apply_harness import apply_one

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.disk import worktree
from spark_cli.edits.disk.journal import history, undo
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.edits.model.outcome import EditApplied, RefusedEdit, outcome_to_json

UNDO = ".spark/undo"  # the journal's folder in these tests

PY = 'import os\n\n\ndef greet(name):\n    return "hello " + name\n\n\ndef bye():\n    return 0\n'


def sr(path: str, search: str, replace: str) -> FileEdit:
    return FileEdit("update", path, (Hunk(search, replace, line=2),), "search_replace", line=1)


def patch(path: str, *hunks: tuple[str, str], kind: str = "update",
          move_to: str | None = None) -> FileEdit:
    return FileEdit(kind, path, tuple(Hunk(s, r, line=10 + n) for n, (s, r) in enumerate(hunks)),
                    "apply_patch", move_to=move_to, line=9)


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "app.py").write_text(PY)
    return tmp_path


def test_applies_and_reports_diff_and_steps(repo) -> None:
    out = apply_one(sr("app.py", "    return 0\n", "    return 1\n"), repo)
    assert isinstance(out, EditApplied) and out.ok
    assert out.hunks == 1 and out.step_per_hunk and out.syntax is not None
    assert "-    return 0\n+    return 1\n" in out.diff
    assert (repo / "app.py").read_text() == PY.replace("return 0", "return 1")


def test_one_failing_hunk_writes_nothing_and_names_it(repo) -> None:
    edit = patch("app.py", ("import os\n", "import sys\n"), ("    return 42\n", "    return 1\n"))
    out = apply_one(edit, repo)
    assert isinstance(out, RefusedEdit)
    assert out.hunk_index == 2 and out.line == 11
    assert "hunk 2" in out.message and "nothing in this file was changed" in out.message
    assert (repo / "app.py").read_text() == PY


def test_syntax_error_refused_then_allowed(repo) -> None:
    edit = sr("app.py", "    return 0\n", "    return (0\n")
    out = apply_one(edit, repo)
    assert isinstance(out, RefusedEdit) and out.reason == "syntax"
    assert (repo / "app.py").read_text() == PY
    out = apply_one(edit, repo, allow_syntax_errors=True)
    assert out.ok and out.syntax is not None and not out.syntax.ok


def test_dry_run_writes_nothing(repo) -> None:
    out = apply_one(sr("app.py", "    return 0\n", "    return 1\n"), repo, dry_run=True)
    assert out.ok and out.dry_run and "would apply" in out.message
    assert (repo / "app.py").read_text() == PY


def test_create_append_add_delete_move(repo) -> None:
    assert apply_one(sr("new/mod.py", "", "X = 1\n"), repo).created
    assert (repo / "new/mod.py").read_text() == "X = 1\n"
    assert apply_one(sr("new/mod.py", "", "Y = 2\n"), repo).ok
    assert (repo / "new/mod.py").read_text() == "X = 1\nY = 2\n"
    refused = apply_one(patch("app.py", ("", "x = 1\n"), kind="add"), repo)
    assert isinstance(refused, RefusedEdit) and refused.reason == "exists"
    moved = apply_one(patch("new/mod.py", ("Y = 2\n", "Y = 3\n"), move_to="pkg/mod.py"), repo)
    assert moved.ok and moved.moved_from == "new/mod.py"
    assert not (repo / "new/mod.py").exists()
    assert (repo / "pkg/mod.py").read_text() == "X = 1\nY = 3\n"
    deleted = apply_one(patch("pkg/mod.py", kind="delete"), repo)
    assert deleted.ok and deleted.deleted and not (repo / "pkg/mod.py").exists()
    missing = apply_one(patch("pkg/mod.py", kind="delete"), repo)
    assert isinstance(missing, RefusedEdit) and "does not exist" in missing.message


def test_update_of_missing_file_says_how_to_create(repo) -> None:
    out = apply_one(sr("nope.py", "a\n", "b\n"), repo)
    assert isinstance(out, RefusedEdit) and "empty SEARCH" in out.message
    out = apply_one(patch("nope.py", ("a\n", "b\n")), repo)
    assert isinstance(out, RefusedEdit) and "Add File" in out.message


@pytest.mark.parametrize("path", ["../x.py", "/etc/passwd", ".git/config"])
def test_escapes_refused_before_writing(repo, path) -> None:
    out = apply_one(sr(path, "", "x\n"), repo)
    assert isinstance(out, RefusedEdit) and out.reason == "path"
    assert sorted(os.listdir(repo)) == ["app.py"]


def test_binary_too_large_directory(repo) -> None:
    (repo / "b.bin").write_bytes(b"\x00\x01")
    assert apply_one(sr("b.bin", "a", "b"), repo).reason == "binary"
    assert apply_one(sr("app.py", "a", "b"), repo, size_limit=10).reason == "too_large"
    (repo / "d").mkdir()
    assert apply_one(sr("d", "a", "b"), repo).reason == "is_directory"


def test_failed_write_is_refused_and_journal_forgets(repo, monkeypatch) -> None:
    def boom(*_args, **_kwargs) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(worktree, "write_atomic", boom)
    applier = Applier(repo, undo_dir=repo / UNDO)
    applier.begin_batch()
    out = applier.apply(sr("app.py", "    return 0\n", "    return 1\n"))
    assert isinstance(out, RefusedEdit) and out.reason == "io"
    assert "No space left" in out.message
    assert applier.end_batch() is None
    assert (repo / "app.py").read_text() == PY


def test_conflict_applies_safe_hunks_and_keeps_user_change(repo) -> None:
    seen = {"app.py": PY}
    user = PY.replace("    return 0\n", "    return -1  # mine\n")
    (repo / "app.py").write_text(user)
    edit = patch("app.py", ("import os\n", "import sys\n"), ("    return 0\n", "    return 1\n"))
    out = apply_one(edit, repo, seen=seen)
    assert isinstance(out, EditApplied) and out.partial
    assert out.refused[0].hunk_index == 2
    assert (repo / "app.py").read_text() == user.replace("import os", "import sys")
    # a hunk whose search text the user rewrote is refused as a conflict
    edit = patch("app.py", ("    return -1  # mine\n", "    return 1\n"))
    out = apply_one(edit, repo, seen=seen)
    assert isinstance(out, RefusedEdit) and out.reason == "conflict"
    assert "changed on disk since the model read it" in out.message
    assert "line 9" in out.message


def test_applier_batch_tracks_its_own_writes(repo) -> None:
    applier = Applier(repo, undo_dir=repo / UNDO, seen={"app.py": PY})
    applier.begin_batch("turn")
    first = applier.apply(sr("app.py", "    return 0\n", "    return 1\n"))
    second = applier.apply(sr("app.py", "    return 1\n", "    return 2\n"))
    assert first.ok and second.ok and not second.partial
    batch = applier.end_batch()
    assert batch is not None and [r.path for r in batch.files] == ["app.py"]
    assert applier.all_applied
    assert len(history(repo / UNDO)) == 1
    undo(repo, repo / UNDO)
    assert (repo / "app.py").read_text() == PY


def test_outcome_json_round_trips(repo) -> None:
    ok = apply_one(sr("app.py", "    return 0\n", "    return 1\n"), repo)
    bad = apply_one(sr("app.py", "nothing like this\n", "x\n"), repo)
    for outcome in (ok, bad):
        data = json.loads(json.dumps(outcome_to_json(outcome)))
        assert data["path"] == "app.py" and data["message"] == outcome.message
    assert outcome_to_json(ok)["type"] == "edit_applied"
    assert outcome_to_json(bad)["type"] == "edit_refused"


def test_no_final_newline_and_crlf_kept(repo) -> None:
    (repo / "w.txt").write_bytes(b"one\r\ntwo")
    assert apply_one(sr("w.txt", "two\n", "three\n"), repo).ok
    assert (repo / "w.txt").read_bytes() == b"one\r\nthree"


def test_symlink_inside_repo_edits_its_target(repo) -> None:
    (repo / "alias.py").symlink_to(repo / "app.py")
    assert apply_one(sr("alias.py", "    return 0\n", "    return 5\n"), repo).ok
    assert (repo / "alias.py").is_symlink()
    assert "return 5" in (repo / "app.py").read_text()


def test_mode_kept_on_update_and_move(repo) -> None:
    script = repo / "run.sh"
    script.write_text("#!/bin/sh\necho 1\n")
    script.chmod(0o750)
    assert apply_one(sr("run.sh", "echo 1\n", "echo 2\n"), repo).ok
    assert script.stat().st_mode & 0o777 == 0o750
    assert apply_one(patch("run.sh", move_to="bin/run.sh"), repo).ok
    assert (repo / "bin/run.sh").stat().st_mode & 0o777 == 0o750


def test_syntax_refusal_names_the_hunk(repo) -> None:
    edit = patch("app.py", ("import os\n", "import sys\n"), ("    return 0\n", "    return (0\n"))
    out = apply_one(edit, repo)
    assert isinstance(out, RefusedEdit) and out.reason == "syntax"
    assert out.hunk_index == 2 and out.line == 11
    assert out.message.startswith("hunk 2 (edit line 11): ")


def test_dry_run_batch_sees_earlier_blocks(repo) -> None:
    applier = Applier(repo, undo_dir=repo / UNDO, dry_run=True)
    applier.begin_batch()
    assert applier.apply(sr("app.py", "    return 0\n", "    return 1\n")).ok
    assert applier.apply(sr("app.py", "    return 1\n", "    return 2\n")).ok
    assert applier.apply(sr("made.py", "", "A = 1\n")).ok
    assert applier.apply(sr("made.py", "A = 1\n", "A = 2\n")).ok
    assert applier.apply(patch("app.py", kind="delete")).ok
    assert not applier.apply(sr("app.py", "x", "y")).ok  # deleted in this dry run
    assert applier.end_batch() is None
    assert (repo / "app.py").read_text() == PY and not (repo / "made.py").exists()
    assert not (repo / ".spark").exists()


def test_crlf_in_the_edit_text_does_not_double_endings(repo) -> None:
    (repo / "w.txt").write_bytes(b"one\r\ntwo\r\n")
    assert apply_one(sr("w.txt", "two\r\n", "2\r\nthree\r\n"), repo).ok
    assert (repo / "w.txt").read_bytes() == b"one\r\n2\r\nthree\r\n"
    assert apply_one(sr("n.txt", "", "a\r\nb\r\n"), repo).ok
    assert (repo / "n.txt").read_bytes() == b"a\nb\n"


def test_an_absolute_path_inside_the_repo_is_accepted(repo) -> None:
    out = apply_one(sr(f"{repo}/app.py", "    return 0\n", "    return 1\n"), repo)
    assert out.ok and out.path == "app.py"
    assert "return 1" in (repo / "app.py").read_text()


def test_add_file_on_a_directory_says_it_is_a_directory(repo) -> None:
    (repo / "pkg").mkdir()
    for edit in (FileEdit("add", "pkg", (Hunk("", "x\n"),), "apply_patch"),
                 FileEdit("update", "pkg", (Hunk("", "x\n"),), "search_replace")):
        out = apply_one(edit, repo)
        assert isinstance(out, RefusedEdit) and out.reason == "is_directory"
        assert "pkg is a directory" in out.message


THREE = "def a():\n    t = 1\n\n\ndef b():\n    t = 1\n\n\ndef c():\n    t = 1\n"


def test_identical_blocks_apply_in_order_once_there_is_one_per_place(tmp_path) -> None:
    (tmp_path / "t.py").write_text(THREE)
    applier = Applier(tmp_path)
    applier.begin_batch("turn")
    outs = [applier.apply(sr("t.py", "    t = 1\n", "    t = 2\n")) for _ in range(3)]
    applier.end_batch()
    assert [o.ok for o in outs] == [False, False, True]
    assert "send one identical block per place (3 in all)" in outs[0].message
    assert "This is copy 2 of an identical block" in outs[1].message
    assert "3 identical blocks" in outs[2].message
    assert (tmp_path / "t.py").read_text() == THREE.replace("t = 1", "t = 2")
    assert applier.all_applied


def test_too_few_identical_blocks_change_nothing(tmp_path) -> None:
    (tmp_path / "t.py").write_text(THREE)
    applier = Applier(tmp_path)
    applier.begin_batch("turn")
    outs = [applier.apply(sr("t.py", "    t = 1\n", "    t = 2\n")) for _ in range(2)]
    assert not any(o.ok for o in outs) and not applier.all_applied
    assert (tmp_path / "t.py").read_text() == THREE


def test_identical_hunks_in_one_section_take_one_place_each(tmp_path) -> None:
    (tmp_path / "t.py").write_text(THREE)
    out = apply_one(patch("t.py", *[("    t = 1\n", "    t = 3\n")] * 3), tmp_path)
    assert out.ok
    assert (tmp_path / "t.py").read_text() == THREE.replace("t = 1", "t = 3")
    out = apply_one(patch("t.py", *[("    t = 3\n", "    t = 4\n")] * 2), tmp_path)
    assert isinstance(out, RefusedEdit) and out.reason == "ambiguous"


def test_a_hunk_on_a_line_the_user_changed_is_a_conflict_not_a_miss(repo) -> None:
    seen = {"app.py": PY}
    (repo / "app.py").write_text(PY.replace("    return 0\n", "    return -1\n"))
    out = apply_one(patch("app.py", ("import os\n", "import sys\n"),
                           ("    return 0\n", "    return 1\n")), repo, seen=seen)
    assert isinstance(out, EditApplied) and out.partial
    assert out.refused[0].reason == "conflict"
    assert "matches line 9 of the file as the model read it" in out.refused[0].message
    out = apply_one(patch("app.py", ("    return 0\n", "    return 1\n")), repo, seen=seen)
    assert isinstance(out, RefusedEdit) and out.reason == "conflict"


def test_a_move_reads_the_file_with_the_appliers_size_limit(tmp_path) -> None:
    big = "x = 1\n" * 500_000  # 3 MB: over the default 2 MiB limit
    (tmp_path / "big.py").write_text(big)
    move = FileEdit("update", "big.py", (), "apply_patch", move_to="lib/big.py")
    refused = apply_one(move, tmp_path)
    assert isinstance(refused, RefusedEdit) and refused.reason == "too_large"
    assert (tmp_path / "big.py").read_text() == big and not (tmp_path / "lib").exists()
    moved = apply_one(move, tmp_path, size_limit=4 * 1024 * 1024)  # raised: it moves
    assert isinstance(moved, EditApplied), moved
    assert (tmp_path / "lib" / "big.py").read_text() == big
    assert not (tmp_path / "big.py").exists()

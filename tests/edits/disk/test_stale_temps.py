"""A write killed before its rename leaves a spark temp file; the next run removes it,
and until then nothing takes it for a source file.

The kill is real: a child process rewrites a big file in a loop and is SIGKILLed
the moment its temp file shows up in the repo."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.disk.atomic import is_temp_name, remove_stale_temps
from spark_cli.edits.disk.paths import confine, expand_short_name
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.edits.model.outcome import EditApplied, FileRefused, RefusedEdit

UNDO = ".spark/undo"  # the journal's folder in these tests

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from spark_cli.edits.apply.applier import Applier
    from spark_cli.edits.model.blocks import FileEdit, Hunk

    root = Path(sys.argv[1])
    applier = Applier(root, undo_dir=root / ".spark" / "undo")
    print("ready", flush=True)
    for step in range(100_000):
        applier.begin_batch(f"step {step}")
        current = (root / "src" / "big.txt").read_text()
        new = current.replace("a", "b") if "a" in current[:4] else current.replace("b", "a")
        edit = FileEdit("update", "src/big.txt", (Hunk(current, new),), "search_replace")
        assert applier.apply(edit).ok
        applier.end_batch()
""")


def _temps(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if is_temp_name(p.name)]


def _src_temps(root: Path) -> bool:
    return any(is_temp_name(name) for name in os.listdir(root / "src"))


def _kill_mid_write(root: Path) -> list[Path]:
    """Run the writer and SIGKILL it while a temp file exists; the temps left behind."""
    for _attempt in range(20):
        child = subprocess.Popen([sys.executable, "-c", CHILD, str(root)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr and child.stderr.read()
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and child.poll() is None and not _src_temps(root):
                pass
            assert child.poll() is None, child.stderr and child.stderr.read()
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        left = _temps(root / "src")
        if left:
            return left
    pytest.fail("no kill landed while a temp file existed in 20 tries")


@pytest.fixture
def killed(tmp_path: Path) -> tuple[Path, list[Path]]:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "big.txt").write_text("a" * 1_500_000)  # under the size limit
    (tmp_path / "src" / "app.py").write_text("x = 1\n")
    return tmp_path, _kill_mid_write(tmp_path)


def test_the_next_run_removes_a_killed_writes_temp_file(killed) -> None:
    root, left = killed
    assert all(p.name.startswith(".big.txt.") for p in left)
    data = (root / "src" / "big.txt").read_text()
    assert set(data) in ({"a"}, {"b"})  # wholly old or wholly new
    applier = Applier(root, undo_dir=root / UNDO)  # the next run
    assert not _temps(root)
    assert sorted(applier.cleaned) == sorted(os.path.relpath(p, root) for p in left)
    outcome = applier.apply(FileEdit("update", "src/app.py", (Hunk("x = 1\n", "x = 2\n"),),
                                     "search_replace"))
    assert isinstance(outcome, EditApplied)


def test_a_leftover_temp_file_is_never_taken_for_a_source_file(killed) -> None:
    root, left = killed
    name = left[0].name
    with pytest.raises(FileRefused, match="temp file"):
        confine(root, f"src/{name}")
    assert expand_short_name(root, name) == []
    assert expand_short_name(root, "big.txt", shown=[f"src/{name}"]) == ["src/big.txt"]
    outcome = Applier(root, undo_dir=root / UNDO, dry_run=True).apply(
        FileEdit("update", f"src/{name}", (Hunk("a", "b"),), "search_replace"))
    assert isinstance(outcome, RefusedEdit) and outcome.reason == "path"


def test_a_live_writers_temp_file_is_kept(tmp_path: Path) -> None:
    mine = tmp_path / f".app.py.{os.getpid()}.abc123.spark-tmp"
    parent = tmp_path / f".app.py.{os.getppid()}.def456.spark-tmp"
    fresh_old_style = tmp_path / ".app.py.k2j3h4.spark-tmp"
    for path in (mine, parent, fresh_old_style):
        path.write_text("partial")
    assert remove_stale_temps(tmp_path) == []
    old = time.time() - 7200
    os.utime(parent, (old, old))  # an hour-old write is gone, whoever runs
    assert remove_stale_temps(tmp_path) == [parent]
    assert mine.exists() and fresh_old_style.exists()


def test_only_spark_temp_names_are_temp_names() -> None:
    assert is_temp_name(".app.py.123.abc.spark-tmp")
    assert not is_temp_name("app.py")
    assert not is_temp_name("notes.spark-tmp")  # not hidden: not ours
    assert not is_temp_name(".app.py")

"""SIGKILL a process while it applies big edits, repeatedly: every file is wholly old or new."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from spark_cli.edits.disk.journal import history, undo
from tests.waiting import wait_until_sync

UNDO = ".spark/undo"  # the journal's folder in these tests

FILES = 4
LINES = 8_000  # ~130 KB per file: each write takes a while
KILLS = 20

CHILD = textwrap.dedent("""
    import sys
    from pathlib import Path
    from spark_cli.edits.apply.applier import Applier
    from spark_cli.edits.model.blocks import FileEdit, Hunk

    root = Path(sys.argv[1])
    names = sys.argv[2:]

    def body(version):
        return f"version {version}\\n" + f"line of version {version:06d}\\n" * %(lines)d

    applier = Applier(root, undo_dir=root / ".spark" / "undo")
    print("ready", flush=True)
    version = int((root / names[0]).read_text().split("\\n", 1)[0].split()[1])
    for step in range(10_000):
        applier.begin_batch(f"step {step}")
        for name in names:
            current = (root / name).read_text()
            old = current.split("\\n", 1)[0]
            new_version = int(old.split()[1]) + 1
            hunk = Hunk(search=current, replace=body(new_version))
            outcome = applier.apply(FileEdit("update", name, (hunk,), "search_replace"))
            assert outcome.ok, outcome
        applier.end_batch()
""") % {"lines": LINES}


def _body(version: int) -> str:
    return f"version {version}\n" + f"line of version {version:06d}\n" * LINES


def _version(path: Path) -> int:
    """The version a file holds now (0 when it cannot be read as one)."""
    try:
        return int(path.read_text().split()[1])
    except (IndexError, ValueError, OSError):
        return 0


def _wholly_one_version(data: str) -> bool:
    header, _, rest = data.partition("\n")
    try:
        version = int(header.split()[1])
    except (IndexError, ValueError):
        return False
    return data == _body(version) and bool(rest)


def test_sigkill_never_leaves_a_half_written_file(tmp_path: Path) -> None:
    names = [f"f{n}.txt" for n in range(FILES)]
    for name in names:
        (tmp_path / name).write_text(_body(0))
    rng = random.Random(1234)
    deadline = time.monotonic() + 60
    progressed = 0
    for kill in range(KILLS):
        assert time.monotonic() < deadline, "kill test ran too long"
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(tmp_path), *names],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        try:
            assert child.stdout is not None
            assert child.stdout.readline().strip() == "ready", child.stderr.read()
            time.sleep(rng.uniform(0.0, 0.08))  # the kill lands at a random moment
            if kill == KILLS - 1 and not progressed:  # a loaded machine: once, mid-writing
                wait_until_sync(lambda: any(_version(tmp_path / n) for n in names),
                                what="the child's first write")
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(timeout=10)
            for stream in (child.stdout, child.stderr):
                if stream is not None:
                    stream.close()
        for name in names:
            data = (tmp_path / name).read_text()
            assert _wholly_one_version(data), f"{name} is half-written"
            progressed = max(progressed, int(data.split()[1]))
    assert progressed > 0, "the child never got to write anything: the test proved nothing"
    # the journal survived the kills too: the newest (possibly cut-short) batch undoes cleanly
    assert history(tmp_path / UNDO)
    before = {name: (tmp_path / name).read_text() for name in names}
    # may restore nothing: killed between recording and writing
    result = undo(tmp_path, tmp_path / UNDO)
    for name in names:
        data = (tmp_path / name).read_text()
        assert _wholly_one_version(data)
        if name in result.restored:
            assert int(data.split()[1]) == int(before[name].split()[1]) - 1

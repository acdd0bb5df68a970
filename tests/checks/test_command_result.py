"""The text the model gets for a command (status line, head and tail, the cut line), and
what a command changed in the repo."""

from __future__ import annotations

import os
from pathlib import Path

from spark_cli.checks.command_run import CommandRun, Kept, format_run
from spark_cli.tools.repo_files import changed, stamp


def _run(output: str = "", **fields: object) -> CommandRun:
    values: dict[str, object] = {"command": "pytest", "ended": "exit", "exit_code": 0,
                                 "duration_s": 1.23, "head": output, "tail": ""}
    values.update(fields)
    return CommandRun(**values)  # type: ignore[arg-type]


def test_status_lines() -> None:
    assert format_run(_run("ok\n"), 1000) == "exit 0 · 1.2 s\nok\n"
    timed_out = _run("", ended="timeout", exit_code=None, duration_s=30.04, timeout_s=30)
    assert format_run(timed_out, 1000) == "killed: timeout after 30 s · 30.0 s\n"
    stopped = _run("x", ended="stopped", exit_code=None, duration_s=0.42)
    assert format_run(stopped, 1000) == "stopped by the user · 0.4 s\nx"


def test_long_output_keeps_head_and_tail_lines_within_the_budget() -> None:
    lines = [f"line {n}\n" for n in range(1000)]
    text = format_run(_run("".join(lines)), 500)
    body = text.split("\n", 1)[1]
    assert len(text) <= 500 and body.startswith("line 0\nline 1\n")
    assert body.endswith("line 999\n")
    before, _, after = body.partition("[… ")
    note, kept_tail = after.split("\n", 1)
    kept = before.count("\n") + kept_tail.count("\n")
    dropped = sum(map(len, lines)) - len(before) - len(kept_tail)
    assert note == f"{1000 - kept} lines ({dropped} bytes) cut …]" and kept > 20


def test_a_run_already_cut_adds_its_dropped_part_to_the_note() -> None:
    run = _run("aaa\n", tail="zzz\n", cut_bytes=5000, cut_lines=100)
    assert run.output == "aaa\n[… 100 lines (5000 bytes) cut …]\nzzz\n"
    assert format_run(run, 1000) == "exit 0 · 1.2 s\n" + run.output
    small = format_run(_run("a" * 50 + "\n", tail="b" * 50 + "\n", cut_bytes=10,
                            cut_lines=1), 100)
    assert "(" in small and "cut …]" in small and len(small) <= 100


def test_kept_head_and_tail_by_bytes_on_character_boundaries() -> None:
    kept = Kept(5, 3)
    for chunk in ("héllo", " wörld\n", "end"):
        kept.add(chunk)
    head, tail = "".join(kept.head), "".join(kept.tail)
    assert head == "héll" and tail == "end"
    whole = "héllo wörld\nend"
    assert kept.cut_bytes == len(whole.encode()) - len(head.encode()) - len(tail.encode())
    assert kept.cut_lines == 1


def test_changed_names_added_removed_and_modified_files(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("ignored.txt\n")
    for name in ("same.py", "edited.py", "gone.py"):
        (tmp_path / name).write_text(name)
    before = stamp(tmp_path)
    (tmp_path / "edited.py").write_text("longer content")
    same = next(f for f in before.files if f.rel == "same.py")
    os.utime(tmp_path / "same.py", ns=(same.mtime_ns, same.mtime_ns))
    (tmp_path / "gone.py").unlink()
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "new.bin").write_bytes(b"\0")
    (tmp_path / "ignored.txt").write_text("x")
    (tmp_path / "__pycache__").mkdir()
    (tmp_path / "__pycache__" / "m.pyc").write_bytes(b"\0")
    assert changed(before, stamp(tmp_path)) == ("edited.py", "gone.py", "ignored.txt",
                                                "sub/new.bin")  # not the generated folder
    assert changed(before, before) == ()


def test_changed_cannot_tell_past_the_cap(tmp_path: Path) -> None:
    for n in range(3):
        (tmp_path / f"f{n}").write_text("x")
    assert changed(stamp(tmp_path, limit=2), stamp(tmp_path)) is None
    assert changed(stamp(tmp_path, limit=10), stamp(tmp_path)) == ()

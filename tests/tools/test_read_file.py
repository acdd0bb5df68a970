"""read_file: whole small files, windows and their trailer, caps, binary and encodings."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.tools import ToolResult
from spark_cli.tools.read_file import MAX_BYTES, MAX_LINES, READ_LIMIT
from spark_cli.tools.run import run_tool


def _read(root: Path, **args: object) -> ToolResult:
    return run_tool(root, "read_file", json.dumps(args))


def _numbered(n: int) -> str:
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def test_small_file_comes_whole_numbered_like_cat_n(make_repo) -> None:
    root = make_repo({"src/a.py": "x = 1\n\ty = 2\n"})
    got = _read(root, path="src/a.py")
    assert got == ToolResult(True, "     1\tx = 1\n     2\t\ty = 2", "src/a.py 1–2 of 2")


def test_last_line_without_newline_and_crlf(make_repo) -> None:
    root = make_repo({"a.txt": b"one\r\ntwo\r\nthree"})
    assert _read(root, path="a.txt").output == "     1\tone\n     2\ttwo\n     3\tthree"


def test_large_file_gives_the_first_window_and_the_trailer(make_repo) -> None:
    root = make_repo({"big.txt": _numbered(500)})
    got = _read(root, path="big.txt")
    lines = got.output.split("\n")
    assert len(lines) == MAX_LINES + 1
    assert lines[0] == "     1\tline 1" and lines[MAX_LINES - 1] == "   400\tline 400"
    assert lines[-1] == ("[lines 1–400 of 500; ask read_file with start_line/end_line "
                         "for more]")
    assert got.summary == "big.txt 1–400 of 500"


def test_window_asked_for(make_repo) -> None:
    root = make_repo({"big.txt": _numbered(500)})
    got = _read(root, path="big.txt", start_line=450, end_line=460)
    lines = got.output.split("\n")
    assert lines[0] == "   450\tline 450" and lines[-2] == "   460\tline 460"
    assert lines[-1] == ("[lines 450–460 of 500; ask read_file with start_line/end_line "
                         "for more]")
    tail = _read(root, path="big.txt", start_line=490, end_line=10_000)
    assert tail.output.split("\n")[-1].startswith("[lines 490–500 of 500;")
    capped = _read(root, path="big.txt", start_line=2, end_line=499)
    assert capped.output.split("\n")[-1].startswith("[lines 2–401 of 500;")


def test_window_of_a_small_file_says_so_and_a_whole_window_does_not(make_repo) -> None:
    root = make_repo({"a.txt": _numbered(10)})
    part = _read(root, path="a.txt", start_line=3, end_line=4)
    assert part.output == ("     3\tline 3\n     4\tline 4\n"
                           "[lines 3–4 of 10; ask read_file with start_line/end_line for more]")
    assert _read(root, path="a.txt", start_line=1, end_line=99).output == _read(
        root, path="a.txt").output


def test_bytes_cap_ends_the_window_early(make_repo) -> None:
    root = make_repo({"wide.txt": "".join(f"{i:04d}" + "x" * 196 + "\n" for i in range(300))})
    got = _read(root, path="wide.txt")
    lines = got.output.split("\n")
    shown = len(lines) - 1
    assert shown == MAX_BYTES // 201
    assert lines[-1] == (f"[lines 1–{shown} of 300; ask read_file with start_line/end_line "
                         "for more]")


def test_a_line_longer_than_the_cap_is_cut(make_repo) -> None:
    root = make_repo({"min.js": "a" * (MAX_BYTES * 2) + "\nb\n"})
    got = _read(root, path="min.js")
    first = got.output.split("\n")[0]
    assert first.startswith("     1\taaa") and first.endswith("[… line cut: 81,920 characters "
                                                             "in all]")
    assert got.output.split("\n")[-1].startswith("[lines 1–1 of 2;")


def test_start_past_the_end_and_end_before_start(make_repo) -> None:
    root = make_repo({"a.txt": _numbered(3)})
    past = _read(root, path="a.txt", start_line=4)
    assert not past.ok
    assert past.output == "read_file: start_line 4 is past the end of a.txt (3 lines)"
    backwards = _read(root, path="a.txt", start_line=3, end_line=2)
    assert not backwards.ok and "end_line 2 is before start_line 3" in backwards.output


def test_empty_file(make_repo) -> None:
    root = make_repo({"e.txt": ""})
    assert _read(root, path="e.txt") == ToolResult(True, "[empty file]", "e.txt (empty)")


def test_binary_and_non_utf8(make_repo) -> None:
    root = make_repo({"logo.dat": b"\x89PNG\r\n\x00\x00data", "latin.txt": b"caf\xe9\n"})
    assert _read(root, path="logo.dat") == ToolResult(False, "logo.dat is a binary file",
                                                      "error: binary file")
    assert _read(root, path="latin.txt") == ToolResult(False, "latin.txt is not UTF-8 text",
                                                       "error: not UTF-8")


def test_nul_after_the_first_8k_is_still_binary(make_repo) -> None:
    root = make_repo({"late.bin": b"a" * 10_000 + b"\x00"})
    assert _read(root, path="late.bin").output == "late.bin is a binary file"


def test_utf16_with_a_bom_is_text(make_repo) -> None:
    root = make_repo({"w.txt": "\ufeffhé\n".encode("utf-16-le")})
    assert _read(root, path="w.txt").output == "     1\thé"


def test_directory_missing_and_too_large(make_repo) -> None:
    root = make_repo({"src/a.py": "x\n"})
    folder = _read(root, path="src")
    assert not folder.ok and folder.output.startswith("src is a folder, not a file")
    missing = _read(root, path="src/nope.py")
    assert not missing.ok and missing.summary == "error: no such file"
    with open(root / "huge.log", "wb") as handle:
        handle.truncate(READ_LIMIT + 1)  # sparse: nothing is written
    huge = _read(root, path="huge.log")
    assert not huge.ok and huge.output.startswith("huge.log is too large to read")


def test_permission_error_is_a_result(make_repo, monkeypatch) -> None:
    from spark_cli.tools import read_file as module

    def refuse(*_args: object, **_kwargs: object) -> object:
        raise PermissionError(13, "Permission denied")

    root = make_repo({"a.txt": "x\n"})
    monkeypatch.setattr(module, "open", refuse, raising=False)
    assert _read(root, path="a.txt") == ToolResult(False, "a.txt: permission denied",
                                                   "error: permission denied")

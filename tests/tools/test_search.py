"""search: rg -n style lines, the cap and its trailer, fixed-text fallback, what is skipped."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.tools import ToolResult
from spark_cli.tools.run import run_tool
from spark_cli.tools.search import FIXED_NOTE, LINE_CHARS, MAX_FILE_BYTES, MAX_HITS


def _search(root: Path, readable: tuple[str, ...] = (), **args: object) -> ToolResult:
    return run_tool(root, "search", json.dumps(args), readable=readable)


def test_hits_as_path_line_text_in_path_order(make_repo) -> None:
    root = make_repo({
        "src/shop/pricing.py": "TAX_RATE = 0.2\n\ndef total(x):\n    return x * TAX_RATE\n",
        "README.md": "The TAX_RATE is 20%.\n",
        "src/app.py": "print(1)\n",
    })
    got = _search(root, pattern="TAX_RATE")
    assert got == ToolResult(True, "README.md:1:The TAX_RATE is 20%.\n"
                             "src/shop/pricing.py:1:TAX_RATE = 0.2\n"
                             "src/shop/pricing.py:4:    return x * TAX_RATE", "3 hits")


def test_regex_syntax_and_line_semantics(make_repo) -> None:
    root = make_repo({"a.py": "def f():\n    pass\ndef g_total():\n  x = 1\n", "b.py": "y\r\n"})
    assert _search(root, pattern=r"^def \w+_total").output == "a.py:3:def g_total():"
    assert _search(root, pattern=r"x = 1$").output == "a.py:4:  x = 1"
    assert _search(root, pattern=r"\):\s+pass").output == "no matches"  # never across lines
    assert _search(root, pattern="(?i)DEF F").output == "a.py:1:def f():"
    assert _search(root, pattern="^y").output == "b.py:1:y"  # the CR is not shown


def test_one_hit_per_line(make_repo) -> None:
    root = make_repo({"a.txt": "aaa\nb\naa\n"})
    assert _search(root, pattern="a").output == "a.txt:1:aaa\na.txt:3:aa"
    assert _search(root, pattern="a").summary == "2 hits"


def test_no_matches(make_repo) -> None:
    root = make_repo({"a.txt": "hello\n"})
    assert _search(root, pattern="absent") == ToolResult(True, "no matches", "no matches")


def test_the_cap_and_its_trailer(make_repo) -> None:
    root = make_repo({"a.txt": "hit\n" * 150, "b.txt": "hit\nmiss\nhit\n" * 10})
    got = _search(root, pattern="hit")
    lines = got.output.split("\n")
    assert len(lines) == MAX_HITS + 1
    assert lines[0] == "a.txt:1:hit" and lines[MAX_HITS - 1] == "a.txt:100:hit"
    assert lines[-1] == "[70 more matches not shown]"
    assert got.summary == "170 hits"


def test_invalid_regex_is_searched_as_fixed_text(make_repo) -> None:
    root = make_repo({"a.py": "total(price\nfoo(?<=x)\n"})
    got = _search(root, pattern="total(")
    assert got.output == f"{FIXED_NOTE}\na.py:1:total(price"
    assert FIXED_NOTE == "[pattern is not a valid regex; searched as fixed text]"
    lookbehind = _search(root, pattern="(?<=x)")  # RE2 has no look-around: fixed text too
    assert lookbehind.output == f"{FIXED_NOTE}\na.py:2:foo(?<=x)"
    assert _search(root, pattern="nothing[").output == f"{FIXED_NOTE}\nno matches"


def test_a_catastrophic_pattern_returns_its_answer(make_repo) -> None:
    line = "a" * 100_000
    root = make_repo({"long.txt": line + "b\n" + line + "\n"})
    nested = _search(root, pattern="(a+)+$")
    assert nested.ok and nested.summary == "1 hit"
    assert nested.output.startswith("long.txt:2:aaaa")
    assert _search(root, pattern="^(a|aa)+c$").output == "no matches"


def test_long_lines_are_cut_around_the_match(make_repo) -> None:
    root = make_repo({"min.js": "x" * 5000 + "NEEDLE" + "y" * 5000 + "\n",
                      "short.js": "z" * 300 + "\n"})
    deep = _search(root, pattern="NEEDLE").output
    text = deep.split(":", 2)[2]
    assert "NEEDLE" in text and text.startswith("…") and text.endswith("…")
    assert len(text) <= LINE_CHARS + 2
    early = _search(root, pattern="^z").output.split(":", 2)[2]
    assert early == "z" * LINE_CHARS + "…"


def test_binary_and_huge_files_are_skipped(make_repo) -> None:
    root = make_repo({"blob.dat": b"NEEDLE\x00\x01", "a.txt": "NEEDLE\n",
                      "logo.png": b"NEEDLE"})
    with open(root / "huge.txt", "wb") as handle:
        handle.write(b"NEEDLE\n")
        handle.truncate(MAX_FILE_BYTES + 1)
    assert _search(root, pattern="NEEDLE").output == "a.txt:1:NEEDLE"
    assert _search(root, pattern="NEEDLE", path="blob.dat") == ToolResult(
        False, "blob.dat is a binary file", "error: binary file")
    huge = _search(root, pattern="NEEDLE", path="huge.txt")
    assert not huge.ok and huge.output.startswith("huge.txt is too large to search")


def test_lock_files_are_searched(make_repo) -> None:
    root = make_repo({"poetry.lock": 'name = "httpx"\n', "img.png": b'name = "httpx"\n'})
    assert _search(root, pattern="httpx").output == 'poetry.lock:1:name = "httpx"'


def test_non_utf8_lines_are_shown_lossily(make_repo) -> None:
    root = make_repo({"latin.txt": b"caf\xe9 NEEDLE\n"})
    assert _search(root, pattern="NEEDLE").output == "latin.txt:1:caf\ufffd NEEDLE"


def test_path_limits_to_a_folder_or_a_file(make_repo) -> None:
    root = make_repo({"src/a.py": "hit\n", "src/sub/b.py": "hit\n", "tests/c.py": "hit\n"})
    assert _search(root, pattern="hit", path="src").output == "src/a.py:1:hit\nsrc/sub/b.py:1:hit"
    assert _search(root, pattern="hit", path="src/sub/").output == "src/sub/b.py:1:hit"
    assert _search(root, pattern="hit", path="tests/c.py").output == "tests/c.py:1:hit"
    missing = _search(root, pattern="hit", path="nope")
    assert not missing.ok and missing.summary == "error: no such file"


def test_glob_filters_files(make_repo) -> None:
    root = make_repo({"src/a.py": "hit\n", "src/b.ts": "hit\n", "src/c.tsx": "hit\n",
                      "docs/d.md": "hit\n"})
    assert _search(root, pattern="hit", glob="*.py").output == "src/a.py:1:hit"
    assert _search(root, pattern="hit", glob="*.{ts,tsx}").output == (
        "src/b.ts:1:hit\nsrc/c.tsx:1:hit")
    assert _search(root, pattern="hit", glob="!src/**").output == "docs/d.md:1:hit"
    assert _search(root, pattern="hit", path="src", glob="a.py").output == "src/a.py:1:hit"


def test_vendored_folders_only_when_asked(make_repo) -> None:
    root = make_repo({"app.js": "hit\n", "node_modules/lib/index.js": "hit\n"})
    assert _search(root, pattern="hit").output == "app.js:1:hit"
    assert _search(root, pattern="hit", path="node_modules").output == (
        "node_modules/lib/index.js:1:hit")


def test_bad_arguments(make_repo) -> None:
    root = make_repo({"a.txt": "x\n"})
    empty = _search(root, pattern="")
    assert not empty.ok and "pattern is empty" in empty.output
    missing = run_tool(root, "search", '{"path": "."}')
    assert not missing.ok and "missing required argument 'pattern'" in missing.output

"""A client controls the prompt: instruction parsing and hunk building stay near-linear.

Generous wall-clock bounds (a quadratic version took seconds to minutes on these
inputs), plus property tests that the fast paths agree with the obvious ones.
"""

from __future__ import annotations

import re
import time

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.code.command_results import parse_command, parse_pytest
from spark_cli.engine.brains.code.edit_text import FileChange, Splice, hunks_for
from spark_cli.engine.brains.rules.instruction_parser import _replace as replace_parts
from spark_cli.engine.brains.rules.instruction_parser import (
    instruction_text,
    mentioned_paths,
    parse_instruction,
)
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.protocol.files import FileBlock, render_file_blocks

# the patterns that were quadratic (each ~40 KB): "replace 'a " took 2 s, "x" 20 s
ADVERSARIAL = ["replace 'a ", "x", "add parameter x: ", "replace `a` with ", "a/",
               "add import from a import ", "add parameter x=\"", "add 'import ", "run ",
               "run the tests ", "fix what ", "run the tests , and "]
SIZE = 40_000
OLD_REPLACE = re.compile(r"\b(?:replace|change|substitute)\s+(?:all\s+)?(?:occurrences\s+of\s+)?"
                         r"(['\"`])(.+?)\1\s+(?:with|by|to|for)\s+(['\"`])(.*?)\3", re.I | re.S)


def test_instruction_parsing_and_reading_command_output_are_linear() -> None:
    started = time.perf_counter()
    for unit in ADVERSARIAL:
        text = unit * (SIZE // len(unit))
        parse_instruction(instruction_text(text))
        mentioned_paths(text, ["a.py", "src/b.py"])
    for unit in ["a", "x.py", "E   NameError: ", "1 passed, ", "= ", "src/a.py:1: in "]:
        for text in (unit * (SIZE // len(unit)), (unit + "\n") * (SIZE // len(unit))):
            parse_pytest(text)
            parse_command("exit 1 · 0.1 s\n" + text)
    assert time.perf_counter() - started < 1.5


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["replace ", "change ", "'", '"', "`", " with ", " to ", "a",
                                 " ", "\n", "b'c", "all "]), max_size=14))
def test_replace_finds_what_the_lazy_regex_found(parts: list[str]) -> None:
    text = "".join(parts)
    m = OLD_REPLACE.search(text)
    assert replace_parts(text) == (None if m is None else (m.group(2), m.group(4)))


def _ask(prompt: str, files: dict[str, str]) -> str:
    text = prompt + "\n\n" + render_file_blocks([FileBlock(p, c) for p, c in files.items()])
    request = BrainRequest("spark-rules", "", (BrainTurn("user", text),), "search_replace")
    return "".join(RulesBrain().answer(request))


def test_one_rename_in_a_big_file_is_quick() -> None:
    # 179 KB, one site: difflib over the whole file took 6.9 s
    src = "".join(f"def f{i}(a, b):\n    x = a + b\n    return x\n\n" for i in range(4000))
    src += "def target():\n    return 1\n"
    started = time.perf_counter()
    answer = _ask("rename target to goal", {"app.py": src})
    assert time.perf_counter() - started < 2.0
    assert "def goal():" in answer and answer.count("<<<<<<< SEARCH") == 1


def test_many_sites_in_a_file_are_quick() -> None:
    # 60 KB, 800 sites: took 77 s
    src = "".join(f"def foo{i}(a, b):\n    x = foo(a)  # foo\n    print('foo', x)\n"
                  f"    return b\n\n" for i in range(800))
    started = time.perf_counter()
    renamed = _ask("rename foo to bar", {"app.py": src})
    cleaned = _ask("remove print calls", {"app.py": src})
    assert time.perf_counter() - started < 3.0
    assert renamed.count("<<<<<<< SEARCH") == 800 and cleaned.count("<<<<<<< SEARCH") == 800


LINES = st.sampled_from(["a\n", "b\n", "\n", "x = 1\n", "return\n", "ab"])


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=10),
       st.lists(st.tuples(st.integers(0, 40), st.integers(0, 6),
                          st.sampled_from(["", "z", "\n", "q\n", "y\ny"])), max_size=4))
def test_spliced_hunks_rebuild_the_new_text(old_lines: list[str], cuts) -> None:
    old = "".join(old_lines)
    if not any(line.strip() for line in old.splitlines()):
        return  # a file of blank lines has no anchor at all
    size = len(old.encode())
    splices = [Splice(min(a, size), min(a + n, size), t.encode()) for a, n, t in cuts]
    change = FileChange.spliced("f", old, splices)
    lines = old.splitlines(keepends=True)
    for hunk in hunks_for(change):
        search = hunk.search.splitlines(keepends=True)
        starts = [i for i in range(len(lines) - len(search) + 1)
                  if lines[i:i + len(search)] == search]
        assert len(starts) == 1, (hunk, lines)
        lines[starts[0]:starts[0] + len(search)] = hunk.replace.splitlines(keepends=True)
    assert "".join(lines) == change.new

"""A client controls the prompt: instruction parsing and hunk building stay near-linear.

Each check times the same work at two sizes, eight times apart, in one run (the best of three,
interleaved; tests/engine/brains/growth.py), and asks that the time grow less than 24x: linear
work grows about 8x, the quadratic versions 64x (they took seconds to minutes at the larger
sizes). No wall-clock bound, so a loaded machine slows both sizes alike. Property tests check
that the fast paths agree with the obvious ones.
"""

from __future__ import annotations

import re

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
from tests.engine.brains.growth import FACTOR, GROWTH, growth

# the patterns that were quadratic (each ~40 KB): "replace 'a " took 2 s, "x" 20 s
ADVERSARIAL = ["replace 'a ", "x", "add parameter x: ", "replace `a` with ", "a/",
               "add import from a import ", "add parameter x=\"", "add 'import ", "run ",
               "run the tests ", "fix what ", "run the tests , and "]
SIZE = 40_000
OLD_REPLACE = re.compile(r"\b(?:replace|change|substitute)\s+(?:all\s+)?(?:occurrences\s+of\s+)?"
                         r"(['\"`])(.+?)\1\s+(?:with|by|to|for)\s+(['\"`])(.*?)\3", re.I | re.S)


def _parse_all(size: int) -> None:
    for unit in ADVERSARIAL:
        text = unit * (size // len(unit))
        parse_instruction(instruction_text(text))
        mentioned_paths(text, ["a.py", "src/b.py"])
    for unit in ["a", "x.py", "E   NameError: ", "1 passed, ", "= ", "src/a.py:1: in "]:
        for text in (unit * (size // len(unit)), (unit + "\n") * (size // len(unit))):
            parse_pytest(text)
            parse_command("exit 1 · 0.1 s\n" + text)


def test_instruction_parsing_and_reading_command_output_are_linear() -> None:
    assert growth(_parse_all, SIZE // FACTOR) < GROWTH


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


def _big_file(functions: int) -> str:
    src = "".join(f"def f{i}(a, b):\n    x = a + b\n    return x\n\n" for i in range(functions))
    return src + "def target():\n    return 1\n"


def test_one_rename_in_a_big_file_is_linear() -> None:
    # 179 KB at 4,000 functions, one site: difflib over the whole file took 6.9 s
    sources = {n: _big_file(n) for n in (500, 4000)}
    answer = _ask("rename target to goal", {"app.py": sources[4000]})
    assert "def goal():" in answer and answer.count("<<<<<<< SEARCH") == 1
    assert growth(lambda n: _ask("rename target to goal", {"app.py": sources[n]}), 500) < GROWTH


def _sites(count: int) -> str:
    return "".join(f"def foo{i}(a, b):\n    x = foo(a)  # foo\n    print('foo', x)\n"
                   f"    return b\n\n" for i in range(count))


def test_many_sites_in_a_file_are_linear() -> None:
    # 60 KB, 800 sites: took 77 s
    sources = {n: _sites(n) for n in (100, 800)}
    renamed = _ask("rename foo to bar", {"app.py": sources[800]})
    cleaned = _ask("remove print calls", {"app.py": sources[800]})
    assert renamed.count("<<<<<<< SEARCH") == 800 and cleaned.count("<<<<<<< SEARCH") == 800

    def both(n: int) -> None:
        _ask("rename foo to bar", {"app.py": sources[n]})
        _ask("remove print calls", {"app.py": sources[n]})

    assert growth(both, 100) < GROWTH


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

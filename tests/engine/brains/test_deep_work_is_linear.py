"""A client controls the task: step splitting and the deep operations stay near-linear.

Generous wall-clock bounds (a quadratic version takes seconds to minutes on these
inputs)."""

from __future__ import annotations

import time

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.deep.steps import MAX_STEPS, parse_steps, split_steps
from spark_cli.protocol.files import FileBlock, render_file_blocks

ADVERSARIAL = [" ", "a ", ". ", "and ", " then", "add docstrings to every ", ", pass ", "1. ",
               "\"; ", "` then ", "document all "]
SIZE = 40_000


def test_step_parsing_is_linear() -> None:
    started = time.perf_counter()
    for unit in ADVERSARIAL:
        text = unit * (SIZE // len(unit))
        steps = parse_steps(text)
        assert len(steps) <= MAX_STEPS + 1
    assert time.perf_counter() - started < 1.5


def test_steps_split_at_lines_sentences_semicolons_and_then() -> None:
    text = ("Do this:\n1. rename a to b. Then remove prints; explain x.py\n"
            "- add a parameter x to f, then add import os\n"
            'replace "a; b. C" with "c"')
    assert split_steps(text) == ["rename a to b", "Then remove prints", "explain x.py",
                                 "add a parameter x to f", "add import os",
                                 'replace "a; b. C" with "c"']


def test_too_many_steps_are_reported_not_done() -> None:
    steps = parse_steps("\n".join(f"rename a{i} to b{i}" for i in range(MAX_STEPS + 3)))
    assert len(steps) == MAX_STEPS + 1
    assert steps[-1].instruction is None and steps[-1].text == "3 more steps"


def _ask(prompt: str, files: dict[str, str]) -> str:
    text = prompt + "\n\n" + render_file_blocks([FileBlock(p, c) for p, c in files.items()])
    request = BrainRequest("spark-deep", "", (BrainTurn("user", text),), "search_replace")
    return "".join(DeepBrain().answer(request))


def test_many_definitions_and_call_sites_are_quick() -> None:
    # 1,500 functions in one file, each calling `foo`: docstrings for all, callers of all
    src = "def foo(a):\n    return a\n\n\n" + "".join(
        f"def f{i}(a, b):\n    return foo(a) + b\n\n\n" for i in range(1500))
    other = "from m import foo\n\n" + "".join(f"x{i} = foo({i})\n" for i in range(1500))
    started = time.perf_counter()
    documented = _ask("add docstrings to every function", {"m.py": src})
    called = _ask("add a parameter n to foo and update its callers, passing 1",
                  {"m.py": src, "n.py": other})
    assert time.perf_counter() - started < 6.0
    assert documented.count('"""') == 2 * 1501
    assert called.count("foo(a, n=1)") == 1500 and called.count("n=1)") == 3000


def test_skipped_steps_are_quoted_short_and_say_why() -> None:
    long_step = "make `it` " + "faster " * 2000
    answer = _ask("\n".join([long_step, "rename foo to bar",
                             *(f"rename a{i} to b{i}" for i in range(MAX_STEPS))]),
                  {"m.py": "def foo():\n    return 1\n"})
    assert len(answer) < 4_000
    assert "1. `make 'it' faster faster" in answer and "…`: I will skip this" in answer
    assert f"`2 more steps`: I will skip this (one task holds at most {MAX_STEPS} steps)" \
        in answer

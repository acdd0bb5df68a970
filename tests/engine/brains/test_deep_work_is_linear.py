"""A client controls the task: step splitting and the deep operations stay near-linear.

The same work at two sizes, eight times apart, in one run (tests/engine/brains/growth.py):
linear work grows about 8x, a quadratic version 64x (seconds to minutes at these sizes)."""

from __future__ import annotations

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.deep.steps import MAX_STEPS, parse_steps, split_steps
from spark_cli.protocol.files import FileBlock, render_file_blocks
from tests.engine.brains.growth import FACTOR, GROWTH, growth

ADVERSARIAL = [" ", "a ", ". ", "and ", " then", "add docstrings to every ", ", pass ", "1. ",
               "\"; ", "` then ", "document all "]
SIZE = 40_000


def _parse_all(size: int) -> None:
    for unit in ADVERSARIAL:
        steps = parse_steps(unit * (size // len(unit)))
        assert len(steps) <= MAX_STEPS + 1


def test_step_parsing_is_linear() -> None:
    assert growth(_parse_all, SIZE // FACTOR) < GROWTH


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


def _files(count: int) -> dict[str, str]:
    """``count`` functions in one file, each calling `foo`, and ``count`` callers in another."""
    src = "def foo(a):\n    return a\n\n\n" + "".join(
        f"def f{i}(a, b):\n    return foo(a) + b\n\n\n" for i in range(count))
    other = "from m import foo\n\n" + "".join(f"x{i} = foo({i})\n" for i in range(count))
    return {"m.py": src, "n.py": other}


def _both(files: dict[str, str]) -> tuple[str, str]:
    documented = _ask("add docstrings to every function", {"m.py": files["m.py"]})
    called = _ask("add a parameter n to foo and update its callers, passing 1", files)
    return documented, called


def test_many_definitions_and_call_sites_are_linear() -> None:
    # docstrings for all, callers of all
    files = {n: _files(n) for n in (200, 1600)}
    documented, called = _both(files[1600])
    assert documented.count('"""') == 2 * 1601
    assert called.count("foo(a, n=1)") == 1600 and called.count("n=1)") == 3200
    assert growth(lambda n: _both(files[n]), 200) < GROWTH


def test_skipped_steps_are_quoted_short_and_say_why() -> None:
    long_step = "make `it` " + "faster " * 2000
    answer = _ask("\n".join([long_step, "rename foo to bar",
                             *(f"rename a{i} to b{i}" for i in range(MAX_STEPS))]),
                  {"m.py": "def foo():\n    return 1\n"})
    assert len(answer) < 4_000
    assert "1. `make 'it' faster faster" in answer and "…`: I will skip this" in answer
    assert f"`2 more steps`: I will skip this (one task holds at most {MAX_STEPS} steps)" \
        in answer

"""Instruction recognition: phrasing in, Instruction out (and the order of the rules)."""

from __future__ import annotations

import pytest

from spark_cli.engine.brains.rules.instruction_parser import (
    Instruction,
    instruction_text,
    mentioned_paths,
    parse_instruction,
)


@pytest.mark.parametrize(("text", "expected"), [
    ("rename foo to bar", Instruction("rename", name="foo", new="bar")),
    ("Please rename the function `parse` to `load` in a.py.",
     Instruction("rename", name="parse", new="load")),
    ("replace 'a b' with \"c\"", Instruction("replace", old="a b", new="c")),
    ("remove print calls", Instruction("remove_prints", what="print")),
    ("remove console.log", Instruction("remove_prints", what="console.log")),
    ("remove debug prints", Instruction("remove_prints", what="print")),
    ("add import os", Instruction("add_import", what="os")),
    ("add import os.path to foo.py", Instruction("add_import", what="os.path")),
    ("import json in foo.py", Instruction("add_import", what="import json")),
    ("add `from typing import Any`", Instruction("add_import", what="from typing import Any")),
    ("add a docstring to foo", Instruction("docstring", name="foo")),
    ("add a parameter verbose: bool = False to run",
     Instruction("add_parameter", name="run", what="verbose", type="bool", new="False")),
    ("add parameter n of type int to Sum",
     Instruction("add_parameter", name="Sum", what="n", type="int")),
    ("delete the function foo", Instruction("delete", name="foo")),
    ("remove foo()", Instruction("delete", name="foo")),
    ("explain foo.py", Instruction("explain")),
    # the other phrasings docs/brains.md promises
    ('change "x" to "y" in util.js', Instruction("replace", old="x", new="y")),
    ("delete print statements", Instruction("remove_prints", what="print")),
    ("add docs to the class Loader", Instruction("docstring", name="Loader")),
    ("write a doc comment for parse", Instruction("docstring", name="parse")),
    ("delete class Old", Instruction("delete", name="Old")),
    ("describe util.go", Instruction("explain")),
    ("summarize the code", Instruction("explain")),
    # running (docs/brains.md, "Running commands")
    ("run the tests", Instruction("run_tests")),
    ("Please run the test suite.", Instruction("run_tests")),
    ("run `make lint`", Instruction("run", what="make lint")),
    ("run pytest -q tests/test_cart.py.", Instruction("run", what="pytest -q tests/test_cart.py")),
    ("Run the tests, then fix anything that fails.", Instruction("fix_tests")),
    ("fix the failing tests", Instruction("fix_tests")),
    ("run through cart.py and explain it", Instruction("explain")),
])
def test_recognised(text: str, expected: Instruction) -> None:
    assert parse_instruction(text) == expected


@pytest.mark.parametrize("text", ["write a poem", "remove unused imports", "rename foo to foo",
                                  "delete the", "", "run the linter", "please run"])
def test_not_recognised(text: str) -> None:
    assert parse_instruction(text) is None


def test_file_blocks_are_cut_from_the_instruction() -> None:
    prompt = "rename a to b\n\nx.py\n```python\nremove print calls\n```\nthanks"
    assert instruction_text(prompt) == "rename a to b\n\nthanks"


def test_mentioned_paths() -> None:
    paths = ["src/app.py", "src/util.py", "README.md"]
    assert mentioned_paths("rename x to y in app.py", paths) == ["src/app.py"]
    assert mentioned_paths("explain src/util.py.", paths) == ["src/util.py"]
    assert mentioned_paths("rename x to y", paths) == []

"""@@ anchors: one that names nothing is refused; an insertion goes to the top of the body."""

from __future__ import annotations

import pytest

from spark_cli.edits.locate.anchor_checks import anchor_not_found, body_start, unresolved_anchor
from spark_cli.edits.locate.ladder import LocateFailed, locate
from spark_cli.edits.model.blocks import Hunk

PY = ("import os\n\n\ndef load(path):\n    with open(path) as f:\n        return f.read()\n\n\n"
      "def save(path, lines):\n    with open(path) as f:\n        f.write(lines)\n")


@pytest.mark.parametrize("anchor", [
    "def load(path):", "def load", "load", "def save(path, lines, mode)", "with open(path) as f:",
    "def  load( path ):", "import os",
])
def test_anchors_that_name_something(anchor: str) -> None:
    assert unresolved_anchor(PY, "python", [anchor]) is None


@pytest.mark.parametrize("anchor", ["def store(path, lines):", "class Loader", "def alpha():"])
def test_anchors_that_name_nothing(anchor: str) -> None:
    assert unresolved_anchor(PY, "python", ["def load", anchor]) == anchor


def test_text_mode_anchor_by_name_on_a_definition_line() -> None:
    php = "<?php\nclass A {\n    public function save() {\n        return 1;\n    }\n}\n"
    assert unresolved_anchor(php, None, ["function save($force)"]) is None
    assert unresolved_anchor(php, None, ["function store()"]) == "function store()"


def test_the_refusal_lists_similar_definitions() -> None:
    failure = anchor_not_found(PY, "python", "def store(path, lines):")
    assert failure.reason == "missing"
    assert "The anchor 'def store(path, lines):' matched no definition" in failure.message
    assert "line 9: 'def save(path, lines):'" in failure.message


def test_a_hunk_with_an_invented_anchor_is_refused_even_if_its_lines_match() -> None:
    hunk = Hunk("    with open(path) as f:\n        return f.read()\n",
                "    with open(path, 'rb') as f:\n        return f.read()\n",
                anchors=("def store(path, lines):",))
    with pytest.raises(LocateFailed) as err:
        locate(PY, hunk, language="python")
    assert "matched no definition or line" in err.value.message


def test_insertion_under_a_class_goes_after_its_docstring() -> None:
    text = 'class G:\n    """Doc.\n\n    More.\n    """\n\n    def f(self):\n        pass\n'
    assert body_start(text, "python", 0) == 5
    found = locate(text, Hunk("", "    n = 0\n", anchors=("class G:",)), language="python")
    new = text[:found.start] + found.replacement + text[found.end:]
    assert new == text.replace('    """\n\n', '    """\n    n = 0\n\n')


@pytest.mark.parametrize(("language", "text", "row", "expected"), [
    ("python", "def f(\n    a,\n):\n    return a\n", 0, 3),
    ("python", "class A:\n    x = 1\n", 0, 1),
    ("javascript", "class A\n{\n  run() {}\n}\n", 0, 2),
    ("go", "func main(\n\tx int,\n) {\n\trun()\n}\n", 0, 3),
    ("rust", "impl Foo {\n    fn a(&self) {}\n}\n", 0, 1),
    (None, "a:\n  b: 1\n", 0, 1),
])
def test_body_start(language: str | None, text: str, row: int, expected: int) -> None:
    assert body_start(text, language, row) == expected

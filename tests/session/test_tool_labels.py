"""A tool call in a few words."""

from __future__ import annotations

import pytest

from spark_cli.session.tool_access import call_label, call_line


@pytest.mark.parametrize(("name", "arguments", "label"), [
    ("search", '{"pattern": "TAX_RATE"}', "search TAX_RATE"),
    ("search", '{"pattern": "def f", "path": "src", "glob": "*.py"}', "search def f in src *.py"),
    ("read_file", '{"path": "src/shop/pricing.py", "start_line": 1, "end_line": 40}',
     "read src/shop/pricing.py 1–40"),
    ("read_file", '{"path": "a.py", "start_line": 50}', "read a.py 50–"),
    ("read_file", '{"path": "a.py"}', "read a.py"),
    ("list_files", "{}", "list ."),
    ("list_files", '{"path": "src", "glob": "*.py"}', "list src *.py"),
    ("grep", '{"q": 1}', "grep q=1"),
    ("read_file", '{"path": "a.py"', 'read_file {"path": "a.py"'),
])
def test_labels(name: str, arguments: str, label: str) -> None:
    assert call_label(name, arguments) == label


def test_long_labels_are_cut() -> None:
    label = call_label("search", '{"pattern": "' + "x" * 300 + '"}')
    assert len(label) == 80 and label.endswith("…")


def test_a_line_does_not_say_the_path_twice() -> None:
    assert call_line("search TAX_RATE", "3 hits") == "search TAX_RATE → 3 hits"
    assert call_line("read src/a.py 1–40", "src/a.py 1–40 of 120") == "read src/a.py 1–40 of 120"
    assert call_line("read src/a.py", "src/a.py 1–9 of 9") == "read src/a.py 1–9 of 9"
    assert call_line("read b.py", "error: no such file") == "read b.py → error: no such file"

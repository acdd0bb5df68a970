"""Rules brain: rename touches identifiers only, in python, js, ts, go, rust and java."""

from __future__ import annotations

import pytest
from brain_harness import FORMATS, ask, edits_of, run

PY = '''import os


def load(path):
    """load reads the file."""
    data = open(path).read()  # load it
    return data


print("load", load("x"))
'''
PY_RENAMED = PY.replace("def load(", "def read_file(").replace(
    'print("load", load("x"))', 'print("load", read_file("x"))')


@pytest.mark.parametrize("fmt", FORMATS)
def test_python_rename_skips_strings_and_comments(tmp_path, fmt) -> None:
    answer, files = run("rename load to read_file", {"app.py": PY}, tmp_path, fmt)
    assert files["app.py"] == PY_RENAMED
    lines = answer.strip().splitlines()
    assert lines[0] == "Renaming `load` to `read_file` in app.py."
    assert lines[-1] == "Renamed 2 occurrences of `load` to `read_file` in 1 file."


def test_hunks_are_minimal() -> None:
    [first, second] = edits_of(ask("rename load to read_file", {"app.py": PY}))
    assert first.hunks[0].search == "def load(path):\n"
    assert second.hunks[0].search == 'print("load", load("x"))\n'


CASES = {
    "a.js": ('const s = "foo";\n// foo\nfunction foo(a) { return a; }\nfoo(1);\n',
             'const s = "foo";\n// foo\nfunction bar(a) { return a; }\nbar(1);\n'),
    "a.ts": ("type Foo = { n: number };\nconst foo: Foo = { n: 1 };  // Foo\n",
             "type Bar = { n: number };\nconst foo: Bar = { n: 1 };  // Foo\n"),
    "m.go": ('package m\n\n// Foo is foo\nfunc Foo() string { return "Foo" }\n\n'
             "func main() { Foo() }\n",
             'package m\n\n// Foo is foo\nfunc Bar() string { return "Foo" }\n\n'
             "func main() { Bar() }\n"),
    "m.rs": ('fn foo() -> &\'static str { "foo" }\n/// foo\nfn main() { foo(); }\n',
             'fn bar() -> &\'static str { "foo" }\n/// foo\nfn main() { bar(); }\n'),
    "A.java": ('class A {\n    int foo() { return 1; }\n    String s = "foo";\n'
               "    int b = foo();\n}\n",
               'class A {\n    int bar() { return 1; }\n    String s = "foo";\n'
               "    int b = bar();\n}\n"),
}


@pytest.mark.parametrize("path", sorted(CASES))
def test_other_languages(tmp_path, path) -> None:
    before, after = CASES[path]
    old, new = ("Foo", "Bar") if path in ("a.ts", "m.go") else ("foo", "bar")
    _answer, files = run(f"rename {old} to {new}", {path: before}, tmp_path)
    assert files[path] == after


def test_several_files_all_that_contain_the_symbol(tmp_path) -> None:
    files = {"a.py": "def foo():\n    pass\n", "b.py": "from a import foo\nfoo()\n",
             "c.py": "x = 1\n"}
    answer, out = run("rename foo to bar", files, tmp_path)
    assert out == {"a.py": "def bar():\n    pass\n", "b.py": "from a import bar\nbar()\n",
                   "c.py": "x = 1\n"}
    assert "in 2 files" in answer


def test_named_file_only(tmp_path) -> None:
    files = {"a.py": "foo = 1\n", "b.py": "foo = 2\n"}
    _answer, out = run("rename foo to bar in b.py", files, tmp_path)
    assert out == {"a.py": "foo = 1\n", "b.py": "bar = 2\n"}


def test_text_mode_refuses_politely() -> None:
    answer = ask("rename foo to bar", {"notes.txt": "foo\n"})
    assert "no syntax grammar" in answer and "replace 'foo' with 'bar'" in answer
    assert "<<<<<<<" not in answer


def test_symbol_not_found_explains() -> None:
    answer = ask("rename nope to bar", {"a.py": "x = 'nope'\n"})
    assert "no identifier `nope`" in answer and "rename foo to bar" in answer
    assert "<<<<<<<" not in answer

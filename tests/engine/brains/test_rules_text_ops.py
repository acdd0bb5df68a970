"""Rules brain: replace text, remove print/console.log calls, add an import."""

from __future__ import annotations

import pytest
from brain_harness import FORMATS, ask, run


@pytest.mark.parametrize("fmt", FORMATS)
def test_replace_text_everywhere_in_the_file(tmp_path, fmt) -> None:
    src = 'MSG = "hello world"\n# hello there\nx = 1\n\n\ndef hello():\n    return MSG\n'
    answer, out = run("replace 'hello' with 'bye'", {"a.py": src}, tmp_path, fmt)
    assert out["a.py"] == src.replace("hello", "bye")
    assert answer.strip().endswith("Replaced 3 occurrences in 1 file.")


def test_replace_in_named_file_only(tmp_path) -> None:
    files = {"a.js": "let a = 'x';\n", "b.js": "let b = 'x';\n"}
    _answer, out = run('replace "\'x\'" with "\'y\'" in b.js', files, tmp_path)
    assert out == {"a.js": "let a = 'x';\n", "b.js": "let b = 'y';\n"}


def test_replace_missing_text_says_so() -> None:
    answer = ask("replace 'zzz' with 'y'", {"a.py": "x = 1\n"})
    assert answer == "The text 'zzz' does not occur in a.py.\n"


PY = '''def f(x):
    print("debug", x)  # remove me
    y = x + 1
    print(y)
    return y


def g(x):
    if x:
        print(x)
    for i in range(3): print(i)
    return x


class K:
    def m(self):
        print("only")
'''
PY_CLEAN = '''def f(x):
    y = x + 1
    return y


def g(x):
    if x:
        pass
    for i in range(3): pass
    return x


class K:
    def m(self):
        pass
'''


@pytest.mark.parametrize("fmt", FORMATS)
def test_remove_python_prints_keeps_blocks_valid(tmp_path, fmt) -> None:
    answer, out = run("remove print calls", {"a.py": PY}, tmp_path, fmt)
    assert out["a.py"] == PY_CLEAN
    assert answer.strip().endswith("Removed 5 statements from 1 file.")


JS = '''function f(a) {
  console.log("a", a);
  if (a) console.log(a);
  console.error("keep");
  console.debug("dbg"); return a;
}
'''


def test_remove_console_log_only(tmp_path) -> None:
    _answer, out = run("remove console.log", {"a.js": JS}, tmp_path)
    assert out["a.js"] == ('function f(a) {\n  if (a) {}\n  console.error("keep");\n'
                           '  console.debug("dbg"); return a;\n}\n')


def test_remove_debug_prints_js_takes_debug_too(tmp_path) -> None:
    _answer, out = run("remove debug prints", {"a.js": JS}, tmp_path)
    assert out["a.js"] == ('function f(a) {\n  if (a) {}\n  console.error("keep");\n'
                           '  return a;\n}\n')


def test_remove_prints_go_and_rust(tmp_path) -> None:
    go = 'package m\n\nimport "fmt"\n\nfunc F() int {\n\tfmt.Println("x")\n\treturn 1\n}\n'
    rs = 'fn f() -> i32 {\n    println!("x");\n    dbg!(1);\n    1\n}\n'
    _answer, out = run("remove print statements", {"m.go": go, "m.rs": rs}, tmp_path)
    assert out["m.go"] == "package m\n\nfunc F() int {\n\treturn 1\n}\n"
    assert out["m.rs"] == "fn f() -> i32 {\n    1\n}\n"


def test_no_prints_says_so() -> None:
    assert ask("remove prints", {"a.py": "x = 1\n"}) == \
        "I found no print statements to remove in a.py.\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_add_python_import_after_the_others(tmp_path, fmt) -> None:
    src = '"""Mod."""\n\nimport os\nimport sys\n\n\ndef f():\n    return os\n'
    answer, out = run("add import json", {"a.py": src}, tmp_path, fmt)
    assert out["a.py"] == src.replace("import sys\n", "import sys\nimport json\n")
    assert answer.splitlines()[0] == "Adding `import json` to a.py."


def test_add_python_import_without_imports_goes_after_docstring(tmp_path) -> None:
    src = '"""Mod."""\n\nx = 1\n'
    _answer, out = run("import json in a.py", {"a.py": src, "b.py": "y = 2\n"}, tmp_path)
    assert out["a.py"] == '"""Mod."""\n\nimport json\n\nx = 1\n'


def test_add_from_import_quoted(tmp_path) -> None:
    _answer, out = run("add `from typing import Any`", {"a.py": "import os\n"}, tmp_path)
    assert out["a.py"] == "import os\nfrom typing import Any\n"


def test_add_js_import_follows_style(tmp_path) -> None:
    src = "import a from 'a'\n\na()\n"
    _answer, out = run("add import node:fs to app.js", {"app.js": src}, tmp_path)
    assert out["app.js"] == "import a from 'a'\nimport fs from 'node:fs'\n\na()\n"
    req = 'const a = require("a");\n\na();\n'
    _answer, out = run("add import path", {"b.js": req}, tmp_path)
    assert out["b.js"] == 'const a = require("a");\nconst path = require("path");\n\na();\n'


def test_add_go_import_into_block(tmp_path) -> None:
    src = 'package m\n\nimport (\n\t"os"\n)\n\nvar _ = os.Args\n'
    _answer, out = run("add import fmt", {"m.go": src}, tmp_path)
    assert out["m.go"] == 'package m\n\nimport (\n\t"os"\n\t"fmt"\n)\n\nvar _ = os.Args\n'


def test_import_already_there() -> None:
    assert ask("add import os", {"a.py": "import os\n"}) == \
        "a.py already has `import os`; nothing to change.\n"


def test_import_needs_a_file_when_several() -> None:
    answer = ask("add import os", {"a.py": "x = 1\n", "b.py": "y = 1\n"})
    assert "Which file should get the import?" in answer


def test_console_log_leaves_python_prints(tmp_path) -> None:
    files = {"a.py": "def f(x):\n    print(x)\n    return x\n",
             "b.js": 'function g(a) {\n  console.log(a);\n  console.debug(a);\n  return a;\n}\n'}
    answer, out = run("remove console.log", files, tmp_path)
    assert out["a.py"] == files["a.py"]
    assert out["b.js"] == 'function g(a) {\n  console.debug(a);\n  return a;\n}\n'
    assert answer.strip().endswith("Removed 1 statement from 1 file.")
    assert ask("remove console.log from a.py", files) == \
        "I found no console.log statements to remove in a.py.\n"

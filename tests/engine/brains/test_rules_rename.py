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


# --- only the symbol: not other objects' members or other calls' keywords -----------

SHARED = '''import json


def load(path):
    with open(path) as f:
        return json.load(f)


def main():
    cfg = load("x.json")
    print(dict(load=1), cfg)
'''


def test_other_objects_attributes_and_keywords_stay(tmp_path) -> None:
    answer, out = run("rename load to load_config", {"app.py": SHARED}, tmp_path)
    assert out["app.py"] == SHARED.replace("def load(", "def load_config(").replace(
        'cfg = load("', 'cfg = load_config("')
    assert "json.load(f)" in out["app.py"] and "dict(load=1)" in out["app.py"]
    assert "left 2 uses of other objects' `load` alone (`json.load`, `dict(load=1)`)" in answer


METHODS = '''import config


class Loader:
    def load(self, path, strict=False):
        return self.load_raw(path)

    def run(self):
        other.load()
        return self.load("a", strict=True)


def use(obj):
    return config.load(obj.load, dict(load=2))
'''


def test_self_members_module_attributes_and_own_keywords(tmp_path) -> None:
    files = {"app.py": METHODS, "config.py": "def load(x, strict=1):\n    return x\n"}
    _answer, out = run("rename load to fetch", files, tmp_path)
    assert out["app.py"] == METHODS.replace("def load(", "def fetch(").replace(
        'self.load("a"', 'self.fetch("a"').replace("config.load(obj", "config.fetch(obj")
    assert out["config.py"] == "def fetch(x, strict=1):\n    return x\n"


def test_keyword_of_a_function_defined_with_that_parameter(tmp_path) -> None:
    src = "def run(path, mode=1):\n    return path\n\n\nrun(path=1)\nopen(path=2)\n"
    _answer, out = run("rename path to source", {"a.py": src}, tmp_path)
    assert out["a.py"] == ("def run(source, mode=1):\n    return source\n\n\nrun(source=1)\n"
                           "open(path=2)\n")


def test_a_name_imported_from_outside_leaves_that_file_alone(tmp_path) -> None:
    files = {"a.py": "def load():\n    return 1\n", "b.py": "from json import load\nload(f)\n"}
    answer, out = run("rename load to fetch", files, tmp_path)
    assert out == {"a.py": "def fetch():\n    return 1\n", "b.py": files["b.py"]}
    assert "left alone: b.py (its `load` comes from json)" in answer


def test_js_members_keys_and_this(tmp_path) -> None:
    src = ('import * as util from "./util";\nclass K {\n  load() { return this.load(); }\n}\n'
           "function f(o) { return [o.load, util.load(), {load: 1}]; }\n")
    files = {"a.js": src, "util.js": "export function load() {}\n"}
    _answer, out = run("rename load to fetch", files, tmp_path)
    assert out["a.js"] == src.replace("  load()", "  fetch()").replace(
        "this.load()", "this.fetch()").replace("util.load()", "util.fetch()")
    assert out["util.js"] == "export function fetch() {}\n"


@pytest.mark.parametrize(("path", "before", "after"), [
    ("m.go",
     "package m\n\ntype S struct{ Load int }\n\nfunc (s *S) Get() int { return s.Load + o.Load }\n"
     "\nvar x = S{Load: 1}\n",
     "package m\n\ntype S struct{ Size int }\n\nfunc (s *S) Get() int { return s.Size + o.Load }\n"
     "\nvar x = S{Size: 1}\n"),
    ("m.rs",
     "struct S { load: i32 }\nimpl S {\n    fn get(&self) -> i32 { self.load + o.load }\n}\n"
     "fn f() -> S { S { load: 1 } }\n",
     "struct S { size: i32 }\nimpl S {\n    fn get(&self) -> i32 { self.size + o.load }\n}\n"
     "fn f() -> S { S { size: 1 } }\n"),
    ("A.java",
     "class A {\n    int load;\n    int get() { return this.load + o.load; }\n}\n",
     "class A {\n    int size;\n    int get() { return this.size + o.load; }\n}\n"),
])
def test_fields_through_self_only(tmp_path, path: str, before: str, after: str) -> None:
    old, new = ("Load", "Size") if path.endswith(".go") else ("load", "size")
    _answer, out = run(f"rename {old} to {new}", {path: before}, tmp_path)
    assert out[path] == after


def test_only_other_objects_uses_explains() -> None:
    answer = ask("rename load to fetch", {"a.py": "import json\n\nx = json.load(f)\n"})
    assert "no identifier `load`" in answer and "`json.load` belong to other objects" in answer
    assert "<<<<<<<" not in answer


def test_code_inside_f_strings_and_templates_is_renamed(tmp_path) -> None:
    py = 'def load(p):\n    return p\n\n\nmsg = f"{load(1)!r} load {{load}}"\n'
    _answer, files = run("rename load to fetch", {"a.py": py}, tmp_path)
    assert files["a.py"] == ('def fetch(p):\n    return p\n\n\n'
                             'msg = f"{fetch(1)!r} load {{load}}"\n')
    js = "function foo(a) { return a; }\nconst s = `foo ${foo(1)} ${'foo'}`;\n"
    _answer, files = run("rename foo to bar", {"b.js": js}, tmp_path)
    assert files["b.js"] == ("function bar(a) { return a; }\n"
                             "const s = `foo ${bar(1)} ${'foo'}`;\n")


def test_a_module_imported_from_its_package_is_followed(tmp_path) -> None:
    files = {"shop/prices.py": "def total(x):\n    return x\n",
             "shop/report.py": "from shop import prices as p\nfrom json import loads\n\n\n"
                               "print(p.total(1), loads.total)\n"}
    _answer, out = run("rename total to sum_of", files, tmp_path)
    assert out["shop/report.py"].endswith("print(p.sum_of(1), loads.total)\n")

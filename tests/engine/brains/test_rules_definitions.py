"""Rules brain: add a docstring, delete a function, add a parameter."""

from __future__ import annotations

import pytest
from brain_harness import FORMATS, ask, run

PY = '''import os


def parse_config(path, strict=False):
    return os.path.exists(path) and strict


class Loader:
    def load(self):
        return 1


def main():
    parse_config("x")
'''


@pytest.mark.parametrize("fmt", FORMATS)
def test_python_docstring_from_name_and_parameters(tmp_path, fmt) -> None:
    answer, out = run("add a docstring to parse_config", {"a.py": PY}, tmp_path, fmt)
    assert out["a.py"] == PY.replace(
        "def parse_config(path, strict=False):\n",
        'def parse_config(path, strict=False):\n    """Parse config.\n\n    Args:\n'
        '        path: The path.\n        strict: The strict.\n    """\n')
    assert answer.strip().endswith("Documented `parse_config` in a.py.")


def test_python_method_and_class_docstrings(tmp_path) -> None:
    _answer, out = run("add docstring to load", {"a.py": PY}, tmp_path)
    assert '    def load(self):\n        """Load."""\n        return 1\n' in out["a.py"]
    _answer, out = run("add a docstring to the class Loader", {"a.py": PY}, tmp_path)
    assert 'class Loader:\n    """Loader."""\n    def load' in out["a.py"]


def test_existing_docstring_is_left_alone() -> None:
    src = 'def f():\n    """Already."""\n    return 1\n'
    assert ask("add a docstring to f", {"a.py": src}) == \
        "`f` already has a docstring; nothing to change.\n"


def test_jsdoc_and_go_comment(tmp_path) -> None:
    js = "export function loadFile(path, opts) {\n  return path;\n}\n"
    _answer, out = run("add a docstring to loadFile", {"a.js": js}, tmp_path)
    assert out["a.js"] == ("/**\n * Load file.\n *\n * @param path The path.\n"
                           " * @param opts The opts.\n */\n" + js)
    go = "package m\n\nfunc Push(a int) {}\n"
    _answer, out = run("add a docstring to Push", {"m.go": go}, tmp_path)
    assert out["m.go"] == "package m\n\n// Push pushes.\nfunc Push(a int) {}\n"


@pytest.mark.parametrize("fmt", FORMATS)
def test_delete_python_function_keeps_spacing(tmp_path, fmt) -> None:
    answer, out = run("delete the function parse_config", {"a.py": PY}, tmp_path, fmt)
    start, end = PY.index("def parse_config"), PY.index("class Loader")
    assert out["a.py"] == PY[:start] + PY[end:]
    assert "Deleted 1 definition of `parse_config`: a.py (line 4)." in answer


def test_delete_last_method_leaves_pass(tmp_path) -> None:
    _answer, out = run("remove load", {"a.py": PY}, tmp_path)
    assert "class Loader:\n    pass\n\n\ndef main" in out["a.py"]


def test_delete_at_end_of_file(tmp_path) -> None:
    _answer, out = run("remove the function main", {"a.py": PY}, tmp_path)
    assert out["a.py"] == PY[:PY.index("\n\ndef main")]


def test_delete_js_function_with_its_doc_comment(tmp_path) -> None:
    js = "/** Helps. */\nexport function helper() {\n  return 1;\n}\n\nconst keep = 2;\n"
    _answer, out = run("delete function helper", {"a.js": js}, tmp_path)
    assert out["a.js"] == "const keep = 2;\n"


def test_delete_unknown_explains() -> None:
    answer = ask("delete the function nope", {"a.py": PY})
    assert "no function or class named `nope`" in answer and "rename foo to bar" in answer


@pytest.mark.parametrize("fmt", FORMATS)
def test_add_parameter_python_default_goes_last(tmp_path, fmt) -> None:
    answer, out = run("add parameter verbose=False to parse_config", {"a.py": PY}, tmp_path, fmt)
    assert "def parse_config(path, strict=False, verbose=False):" in out["a.py"]
    assert answer.strip().endswith("Added `verbose` to `parse_config`.")


def test_add_parameter_python_without_default_goes_before_defaults(tmp_path) -> None:
    answer, out = run("add a parameter mode: str to parse_config", {"a.py": PY}, tmp_path)
    assert "def parse_config(path, mode: str, strict=False):" in out["a.py"]
    assert "call sites still need to pass it" in answer


def test_add_parameter_js_ts_go_rust(tmp_path) -> None:
    files = {"a.js": "function f(a, ...rest) {}\n", "b.ts": "const g = (x: number) => x;\n",
             "m.go": "package m\n\nfunc Sum(a, b int) int { return a + b }\n",
             "m.rs": "fn run() {}\n"}
    expected = {"a.js": "function f(a, z = 1, ...rest) {}\n",
                "b.ts": "const g = (x: number, z: boolean) => x;\n",
                "m.go": "package m\n\nfunc Sum(a, b int, z int) int { return a + b }\n",
                "m.rs": "fn run(z: bool) {}\n"}
    prompts = {"a.js": "add parameter z = 1 to f in a.js", "b.ts": "add parameter z: boolean to g",
               "m.go": "add parameter z of type int to Sum", "m.rs": "add parameter z: bool to run"}
    for path, prompt in prompts.items():
        _answer, out = run(prompt, {path: files[path]}, tmp_path / path.replace(".", "_"))
        assert out[path] == expected[path], path


def test_go_parameter_needs_a_type() -> None:
    answer = ask("add parameter z to Sum", {"m.go": "package m\n\nfunc Sum() {}\n"})
    assert "A go parameter needs a type" in answer and "<<<<<<<" not in answer


def test_existing_parameter_refused() -> None:
    answer = ask("add parameter path to parse_config", {"a.py": PY})
    assert answer == "`parse_config` already has a parameter `path`.\n"

"""The deep brain: plan, multi-file edits that spark's own edit engine applies, summary."""

from __future__ import annotations

import ast

import pytest
from brain_harness import FORMATS, apply_answer, edits_of, request

from spark_cli.engine.brains.base import EditFormat
from spark_cli.engine.brains.deep.deep_brain import DeepBrain

UTIL = '''def load(path, strict=False):
    return open(path).read()


def save(path, data):
    open(path, "w").write(data)
'''
APP = '''from pkg.util import load, save


def main(argv):
    data = load(argv[1])
    save(argv[2], data)
    return load(argv[3], strict=True)
'''
CLI = '''import pkg.util as util


class Runner:
    def run(self, other):
        other.load("y")  # another object's load
        return util.load("x")
'''
REPO = {"pkg/util.py": UTIL, "pkg/app.py": APP, "pkg/cli.py": CLI, "pkg/__init__.py": ""}


def ask(prompt: str, files: dict[str, str], fmt: EditFormat = "search_replace") -> str:
    return "".join(DeepBrain().answer(request(prompt, files, fmt)))


@pytest.mark.parametrize("fmt", FORMATS)
def test_rename_reaches_every_file_that_uses_the_symbol(tmp_path, fmt) -> None:
    # the prompt names one file; the importers would break, so they change too
    answer = ask("rename load to read_file in pkg/util.py", REPO, fmt)
    files = apply_answer(answer, REPO, tmp_path)
    assert files["pkg/util.py"] == UTIL.replace("def load", "def read_file")
    assert files["pkg/app.py"] == APP.replace("load", "read_file")
    assert files["pkg/cli.py"] == CLI.replace("util.load", "util.read_file")
    lines = answer.splitlines()
    assert lines[0] == "I read 4 files (20 lines) and worked out 1 step."
    assert lines[2:4] == ["Plan:", "1. Rename `load` to `read_file` in pkg/util.py, "
                                   "pkg/app.py, pkg/cli.py."]
    assert lines[-2:] == ["Summary:", "- Renamed 5 occurrences of `load` to `read_file` in 3 "
                                      "files; left 1 use of other objects' `load` alone "
                                      "(`other.load`)."]
    if fmt == "apply_patch":
        assert answer.count("*** Begin Patch") == 1


def test_the_rules_brain_renames_only_the_named_file(tmp_path) -> None:
    from brain_harness import ask as ask_rules
    answer = ask_rules("rename load to read_file in pkg/util.py", REPO)
    assert {edit.path for edit in edits_of(answer)} == {"pkg/util.py"}


@pytest.mark.parametrize("fmt", FORMATS)
def test_docstrings_for_every_function_of_two_files(tmp_path, fmt) -> None:
    answer = ask("Add docstrings to every function in util.py and cli.py", REPO, fmt)
    files = apply_answer(answer, REPO, tmp_path)
    assert files["pkg/app.py"] == APP
    for path in ("pkg/util.py", "pkg/cli.py"):
        tree = ast.parse(files[path])
        functions = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]
        assert functions and all(ast.get_docstring(f) for f in functions), files[path]
        classes = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
        assert all(ast.get_docstring(c) is None for c in classes)  # functions only
    assert '    """Load.\n\n    Args:\n        path: The path.\n' in files["pkg/util.py"]
    assert "- Documented 3 definitions in 2 files." in answer


def test_docstrings_leave_documented_ones_and_say_so(tmp_path) -> None:
    files = {"m.py": 'def a():\n    """Has one."""\n\n\nclass K:\n    def b(self):\n'
                     "        return 1\n"}
    answer = ask("document every function and class", files)
    out = apply_answer(answer, files, tmp_path)["m.py"]
    assert out.count('"""') == 6  # a's own, K's and b's new ones
    assert "1 already had one (left alone)" in answer
    again = ask("add docstrings to all functions", {"m.py": out})
    assert again.strip() == ("Nothing to document in m.py: every one of the 2 definitions "
                             "already has one.")


@pytest.mark.parametrize("fmt", FORMATS)
def test_add_a_parameter_and_update_its_callers(tmp_path, fmt) -> None:
    answer = ask("add a parameter verbose to load and update its callers, passing False",
                 REPO, fmt)
    files = apply_answer(answer, REPO, tmp_path)
    assert "def load(path, verbose, strict=False):" in files["pkg/util.py"]
    assert "data = load(argv[1], verbose=False)" in files["pkg/app.py"]
    assert "return load(argv[3], strict=True, verbose=False)" in files["pkg/app.py"]
    assert 'return util.load("x", verbose=False)' in files["pkg/cli.py"]
    assert 'other.load("y")' in files["pkg/cli.py"]  # not this function
    for text in files.values():
        ast.parse(text)
    assert "- Added `verbose` to `load` and updated 3 calls to pass `False`." in answer


def test_callers_in_go_get_the_argument_at_its_position(tmp_path) -> None:
    files = {"m.go": "package m\n\nfunc Sum(a int, rest ...int) int { return a }\n\n"
                     "func main() { Sum(1, 2, 3); Sum(4) }\n"}
    answer = ask("add parameter scale of type int to Sum and update its callers, passing 10",
                 files)
    out = apply_answer(answer, files, tmp_path)["m.go"]
    assert "func Sum(a int, scale int, rest ...int) int" in out
    assert "Sum(1, 10, 2, 3); Sum(4, 10)" in out


def test_several_steps_build_on_each_other(tmp_path) -> None:
    prompt = ("1. rename save to store\n2. add a parameter mode='r' to load\n"
              "3. make it faster")
    answer = ask(prompt, REPO)
    files = apply_answer(answer, REPO, tmp_path)
    assert "def store(path, data):" in files["pkg/util.py"]
    assert "def load(path, strict=False, mode='r'):" in files["pkg/util.py"]
    assert "from pkg.util import load, store" in files["pkg/app.py"]
    assert "3. `make it faster`: I will skip this (not an instruction I know)." in answer
    assert answer.index("Step 1:") < answer.index("Step 2:") < answer.index("Summary:")
    assert "- Not done: `make it faster` (not an instruction I know)." in answer


def test_explain_says_how_the_files_connect() -> None:
    answer = ask("explain the code", REPO)
    assert "How they connect:\n- `load` (pkg/util.py) is used in pkg/app.py, pkg/cli.py\n" \
        in answer
    assert "- `save` (pkg/util.py) is used in pkg/app.py\n" in answer
    assert not edits_of(answer)


def test_unknown_task_lists_what_it_knows() -> None:
    answer = ask("make it faster", REPO)
    assert answer.startswith("I am the bundled engine's deep brain")
    assert "add docstrings to every function in a.py and b.py" in answer
    assert "rename foo to bar" in answer and "--provider openai" in answer


def test_a_step_it_cannot_do_says_why() -> None:
    assert ask("rename nothing_here to x", REPO).startswith(
        "I found no identifier `nothing_here`")
    assert ask("rename a to b", {}).startswith("There are no files in this request")
    answer = ask("rename nope to x; remove prints", {"m.py": "x = 1\n"})
    assert "I could not do any of it:\n- `rename nope to x`: I found no identifier" in answer


def test_javascript_callers_through_a_module_and_missing_arguments(tmp_path) -> None:
    files = {"util.js": "export function fmt(a, b = 2) {\n  return a + b;\n}\n",
             "main.js": 'import * as u from "./util";\nimport { fmt } from "./util";\n'
                        "u.fmt(1);\nfmt(1, 3);\nother.fmt(9);\n"}
    answer = ask("add a parameter sep = ',' to fmt and update its callers", files)
    out = apply_answer(answer, files, tmp_path)
    assert "export function fmt(a, b = 2, sep = ',') {" in out["util.js"]
    assert "u.fmt(1, undefined, ',');\nfmt(1, 3, ',');\nother.fmt(9);\n" in out["main.js"]


def test_no_callers_is_said(tmp_path) -> None:
    answer = ask("add a parameter n to save", {"pkg/util.py": UTIL})
    assert "- Added `n` to `save` and updated 0 calls to pass `n` (it has no call sites in " \
           "the request)." in answer
    out = apply_answer(answer, {"pkg/util.py": UTIL}, tmp_path)["pkg/util.py"]
    assert "def save(path, data, n):" in out


def test_a_continued_conversation_sees_its_own_multi_step_edits() -> None:
    from spark_cli.engine.brains.base import BrainRequest, BrainTurn
    from spark_cli.protocol.files import FileBlock, render_file_blocks

    first = "rename save to store. then rename load to fetch\n\n" + render_file_blocks(
        [FileBlock(p, c) for p, c in REPO.items()])
    answer = ask("rename save to store. then rename load to fetch", REPO, "apply_patch")
    assert answer.count("*** Begin Patch") == 2  # one envelope per step
    history = (BrainTurn("user", first), BrainTurn("assistant", answer))
    again = "".join(DeepBrain().answer(BrainRequest(
        "spark-deep", "", (*history, BrainTurn("user", "explain pkg/util.py")),
        "search_replace")))
    assert "`def fetch(path, strict=False)`" in again and "`def store(path, data)`" in again


def test_plan_lines_are_imperative() -> None:
    from spark_cli.engine.brains.deep.deep_brain import plan_line

    assert plan_line("Renaming `a` to `b` in x.py.") == "Rename `a` to `b` in x.py"
    assert plan_line("Here is an outline of x.py:") == "Here is an outline of x.py"
    assert plan_line("Add a docstring to every function in x.py") == \
        "Add a docstring to every function in x.py"

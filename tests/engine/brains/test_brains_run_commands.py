"""The brains run commands when the user asks, over the run_command tool.

Each test drives a brain as the client would (:func:`tool_harness.converse`): its calls
are answered with pytest-shaped outputs built here, or by running them for real in a
tmp repo, and the edits of an answer are applied before its calls run.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from brain_harness import FORMATS, edits_of
from test_command_results import COLLECTION_ERROR
from tool_harness import TOOL_NAMES, WITH_COMMANDS, RepoTools, Round, converse

from spark_cli.engine.brains.base import Brain, EditFormat
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.rules.rules_brain import RulesBrain

EXAMPLE = Path(__file__).parents[3] / "examples" / "repo"
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider"
SAYS_PYTEST = f"You edit code.\nThe project's test command: `{PYTEST}`\n"
RENAMED = {  # `total` became `cart_total` in cart.py; the tests still import and call `total`
    "pyproject.toml": '[tool.pytest.ini_options]\npythonpath = ["src"]\n',
    "src/shop/__init__.py": "",
    "src/shop/cart.py": ('"""A cart\'s total."""\n\n\ndef cart_total(prices):\n'
                         "    return sum(prices)\n\n\ndef describe(prices):\n"
                         '    return f"{len(prices)} items"\n'),
    "tests/test_cart.py": ("from shop.cart import describe, total\n\n\ndef test_total():\n"
                           "    assert total([1, 2]) == 3\n\n\ndef test_describe():\n"
                           '    assert describe([1]) == "1 items"\n'),
}
INTERNAL = {**RENAMED,  # cart.py itself still calls `total`; the tests are up to date
            "src/shop/cart.py": RENAMED["src/shop/cart.py"].replace("{len(prices)} items",
                                                                    "{total(prices)} cents"),
            "tests/test_cart.py": ("from shop.cart import describe\n\n\ndef test_describe():\n"
                                   '    assert describe([1]) == "1 cents"\n')}
PASSED = "exit 0 · 0.4 s\n..                                    [100%]\n2 passed in 0.05s\n"


def write(root: Path, files: dict[str, str]) -> Path:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    return root


def run(prompt: str, outputs: list[str] | None, root: Path, *, brain: Brain | None = None,
        instructions: str = SAYS_PYTEST, names: frozenset[str] = WITH_COMMANDS,
        parallel: bool = True, fmt: EditFormat = "search_replace",
        ) -> tuple[list[Round], RepoTools]:
    tools = RepoTools(root, outputs=outputs)
    rounds, _ = converse(brain or RulesBrain(), prompt, tools, names=names,
                         instructions=instructions, parallel=parallel, fmt=fmt)
    return rounds, tools


def commands(tools: RepoTools) -> list[object]:
    return [args["command"] for name, args in tools.log if name == "run_command"]


@pytest.mark.parametrize("prompt", ["run the tests", "Run tests.", "run the test suite",
                                    "please run all the tests"])
def test_run_the_tests_calls_the_project_s_test_command(prompt: str, tmp_path: Path) -> None:
    rounds, tools = run(prompt, [PASSED], tmp_path)
    assert rounds[0].text == f"I'll run the tests: `{PYTEST}`.\n"
    assert [c.name for c in rounds[0].calls] == ["run_command"]
    assert commands(tools) == [PYTEST]
    assert rounds[1].text == "The tests pass: 2 passed in 0.05s.\n" and not rounds[1].calls


def test_without_the_instructions_line_python_files_mean_pytest(tmp_path: Path) -> None:
    prompt = "run the tests\n\napp.py\n```python\nx = 1\n```\n"
    _, tools = run(prompt, [PASSED], tmp_path, instructions="")
    assert commands(tools) == ["pytest"]
    rounds, tools = run("run the tests", [PASSED], tmp_path, instructions="")
    assert commands(tools) == [] and "do not know this project's test command" in rounds[0].text


def test_failing_tests_are_named_with_pytest_s_lines_and_nothing_is_edited(
        tmp_path: Path) -> None:
    failed = ("exit 1 · 0.9 s\nE       assert 3 == 4\n"
              "FAILED tests/test_a.py::test_one - assert 3 == 4\n"
              "FAILED tests/test_a.py::test_two - KeyError: 'x'\n2 failed, 10 passed in 0.31s\n")
    rounds, _ = run("run the tests", [failed], tmp_path)
    assert rounds[-1].text.split("\n")[:3] == [
        "2 tests fail: 2 failed, 10 passed in 0.31s.",
        "- FAILED tests/test_a.py::test_one - assert 3 == 4",
        "- FAILED tests/test_a.py::test_two - KeyError: 'x'"]
    assert "SEARCH" not in rounds[-1].text


@pytest.mark.parametrize(("prompt", "command"), [
    ("run `make lint`", "make lint"),
    ("run pytest -q tests/test_cart.py", "pytest -q tests/test_cart.py"),
    ("run ls", "ls"),
])
def test_run_x_runs_x_and_reports_its_exit_and_last_lines(prompt: str, command: str,
                                                           tmp_path: Path) -> None:
    output = "exit 2 · 1.2 s\n" + "".join(f"line {n}\n" for n in range(1, 15))
    rounds, tools = run(prompt, [output], tmp_path)
    assert commands(tools) == [command]
    lines = rounds[-1].text.split("\n")
    assert lines[0] == f"`{command}` finished (exit 2 · 1.2 s); the last lines:"
    assert lines[2:12] == [f"│ line {n}" for n in range(5, 15)]


def test_output_that_holds_edits_is_quoted_so_the_client_applies_none(tmp_path: Path) -> None:
    output = ("exit 0 · 0.1 s\na.py\n```\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n"
              ">>>>>>> REPLACE\n```\n*** Begin Patch\n*** Delete File: a.py\n*** End Patch\n")
    rounds, _ = run("run cat notes.md", [output], tmp_path)
    assert "│ <<<<<<< SEARCH" in rounds[-1].text and edits_of(rounds[-1].text) == []


@pytest.mark.parametrize(("output", "said"), [
    ("declined: the user did not allow this command", f"You did not allow `{PYTEST}`, so "
     "nothing ran.\n"),
    ("running commands is off (--commands)", f"Running commands is off, so I cannot run "
     f"`{PYTEST}`: start spark with `--commands ask` or `--commands sandbox`.\n"),
    ("killed: timeout after 30 s · 30.0 s", f"`{PYTEST}` did not finish: killed: timeout after "
     "30 s · 30.0 s.\n"),
    ("stopped by the user · 0.4 s", f"`{PYTEST}` did not finish: stopped by the user · 0.4 s.\n"),
])
def test_a_command_that_did_not_run_or_finish_is_said_plainly(output: str, said: str,
                                                              tmp_path: Path) -> None:
    rounds, _ = run("run the tests and fix what fails", [output], tmp_path)
    assert rounds[-1].text == said and len(rounds) == 2


@pytest.mark.parametrize("prompt", ["run the tests", "run ls",
                                    "rename describe to summary and run the tests"])
def test_without_the_tool_declared_running_is_off_in_one_line(prompt: str,
                                                              tmp_path: Path) -> None:
    brain = DeepBrain() if "rename" in prompt else RulesBrain()
    rounds, tools = run(prompt, [], write(tmp_path, RENAMED), names=TOOL_NAMES, brain=brain)
    assert commands(tools) == []
    assert rounds[-1].text.endswith("start spark with `--commands ask` or `--commands sandbox`"
                                    ".\n")
    assert rounds[-1].text.count("Running commands is off") == 1


@pytest.mark.parametrize("brain", [RulesBrain(), DeepBrain()])
def test_nothing_runs_unless_the_message_asks(brain: Brain, tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "repo")
    _, tools = run("rename total_price to cart_total", [], tmp_path / "repo", brain=brain)
    assert commands(tools) == [] and tools.log


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_stale_import_is_fixed_everywhere_then_the_tests_run_again(fmt: EditFormat,
                                                                     tmp_path: Path) -> None:
    root = write(tmp_path, RENAMED)
    rounds, _ = run("run the tests and fix anything that fails",
                    ["exit 2 · 0.4 s\n" + COLLECTION_ERROR, PASSED], root, fmt=fmt)
    assert [[c.name for c in r.calls] for r in rounds] == [
        ["run_command"], ["search", "list_files"], ["read_file"] * 2, ["run_command"], []]
    fix = rounds[3].text
    assert ("*** Begin Patch" in fix) == (fmt == "apply_patch")
    assert rounds[1].text == ("The tests fail on `total`, gone from the code; I'll look for "
                              "where it went.\n")
    assert fix.startswith("`total` was renamed `cart_total` (src/shop/cart.py): I'll fix the "
                          "stale uses.\n")
    assert fix.endswith(f"I'll run the tests again: `{PYTEST}`.\n")
    assert (root / "tests/test_cart.py").read_text() == RENAMED["tests/test_cart.py"].replace(
        " total", " cart_total")
    assert rounds[-1].text == "After the fix, the tests pass: 2 passed in 0.05s.\n"


def test_python_s_hint_names_the_new_name_without_looking(tmp_path: Path) -> None:
    failed = ("exit 1 · 0.2 s\nE   NameError: name 'totl' is not defined. Did you mean: "
              "'total'?\n\nsrc/app.py:2: NameError\n1 failed in 0.01s\n")
    prompt = "fix the failing tests\n\nsrc/app.py\n```python\ntotal = 1\nx = totl + 1\n```\n"
    rounds, tools = run(prompt, [failed, PASSED], tmp_path, names=frozenset({"run_command"}))
    assert [name for name, _ in tools.log] == ["run_command", "run_command"]
    assert "x = totl + 1\n=======\nx = total + 1\n" in rounds[1].text


def test_a_failure_it_cannot_fix_is_named_and_run_once(tmp_path: Path) -> None:
    failed = ("exit 1 · 0.2 s\nE       assert 3 == 4\nFAILED tests/test_a.py::test_one - "
              "assert 3 == 4\n1 failed in 0.01s\n")
    rounds, tools = run("run the tests and fix what fails", [failed], tmp_path)
    assert len(commands(tools)) == 1
    assert rounds[-1].text.startswith("1 test fails: 1 failed in 0.01s.\n")
    assert "I can fix only a name left stale by a rename" in rounds[-1].text


def test_it_runs_the_tests_twice_at_most(tmp_path: Path) -> None:
    root = write(tmp_path, RENAMED)
    still = "exit 1 · 0.2 s\nFAILED tests/test_cart.py::test_total - assert 3 == 4\n1 failed, " \
            "1 passed in 0.02s\n"
    rounds, tools = run("run the tests and fix what fails",
                        ["exit 2 · 0.4 s\n" + COLLECTION_ERROR, still], root, parallel=False)
    assert len(commands(tools)) == 2
    assert rounds[-1].text.startswith("After the fix, 1 test fails: 1 failed, 1 passed")


@pytest.mark.parametrize(("repo", "tb"), [(RENAMED, "auto"), (INTERNAL, "auto"),
                                        (INTERNAL, "short"), (INTERNAL, "line"),
                                        (INTERNAL, "native")])
def test_the_fix_over_real_pytest_output(repo: dict[str, str], tb: str, tmp_path: Path) -> None:
    root = write(tmp_path, repo)
    rounds, tools = run("run the tests and fix what fails", None, root,
                        instructions=f"The project's test command: `{PYTEST} --tb={tb}`")
    assert len(commands(tools)) == 2
    assert rounds[-1].text.startswith("After the fix, the tests pass: ")
    assert "total(" not in (root / "src/shop/cart.py").read_text().replace("cart_total(", "")


def test_run_the_tests_in_the_example_repo(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "repo")
    rounds, _ = run("run the tests", None, tmp_path / "repo")
    assert rounds[-1].text.startswith("The tests pass: 2 passed in ")


def test_deep_runs_the_tests_after_its_change_when_asked(tmp_path: Path) -> None:
    shutil.copytree(EXAMPLE, tmp_path / "repo")
    rounds, tools = run("rename total_price to cart_total and run the tests", None,
                        tmp_path / "repo", brain=DeepBrain())
    assert [c.name for c in rounds[-2].calls] == ["run_command"]
    assert "Summary:\n- Renamed 4 occurrences" in rounds[-2].text
    assert rounds[-1].text.startswith("After the change, the tests pass: 2 passed in ")
    assert "cart_total" in (tmp_path / "repo/tests/test_cart.py").read_text()
    assert commands(tools) == [PYTEST]


def test_deep_asked_only_to_run_and_fix_does_what_the_rules_brain_does(tmp_path: Path) -> None:
    root = write(tmp_path, RENAMED)
    rounds, tools = run("run the tests and fix what fails",
                        ["exit 2 · 0.4 s\n" + COLLECTION_ERROR, PASSED], root, brain=DeepBrain())
    assert len(commands(tools)) == 2
    assert "import describe, cart_total" in (root / "tests/test_cart.py").read_text()
    assert rounds[-1].text == "After the fix, the tests pass: 2 passed in 0.05s.\n"

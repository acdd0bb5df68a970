"""The brains look with the read-only tools, driven as a conversation over examples/repo.

Each test runs the brain's calls with :class:`tool_harness.RepoTools` (the tools'
fixed output formats), sends the outputs back, and applies the final answer with
the real edit parser and applier.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from brain_harness import edits_of
from tool_harness import TOOL_NAMES, RepoTools, answer, converse

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.code.lookups import MAX_ROUNDS
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.rules.rules_brain import RulesBrain

EXAMPLE = Path(__file__).parents[3] / "examples" / "repo"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    return root


def apply(text: str, root: Path) -> set[str]:
    applier = Applier(root)
    edits = edits_of(text)
    for edit in edits:
        outcome = applier.apply(edit)
        assert isinstance(outcome, EditApplied) and not outcome.refused, outcome
    return {edit.path for edit in edits}


def test_rules_rename_searches_reads_every_hit_then_edits_all(repo: Path) -> None:
    tools = RepoTools(repo)
    rounds, _ = converse(RulesBrain(), "rename total_price to cart_total", tools)
    assert [[c.name for c in r.calls] for r in rounds] == [
        ["search"], ["read_file"] * 3, []]
    assert rounds[0].text == "I'll search the repo for `total_price` first.\n"
    assert tools.log[0] == ("search", {"pattern": "\\btotal_price\\b"})
    assert {args["path"] for _, args in tools.log[1:]} == {
        "README.md", "src/shop/cart.py", "tests/test_cart.py"}
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}
    for path in ("src/shop/cart.py", "tests/test_cart.py"):
        text = (repo / path).read_text()
        assert "cart_total" in text and "total_price" not in text


def test_rules_rename_with_the_definition_pushed_edits_at_once(repo: Path) -> None:
    cart = (repo / "src/shop/cart.py").read_text()
    pushed = f"rename total_price to cart_total\n\nsrc/shop/cart.py\n```python\n{cart}```\n"
    tools = RepoTools(repo)
    rounds, _ = converse(RulesBrain(), pushed, tools)
    assert tools.log == [] and len(rounds) == 1
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py"}


def test_rules_rename_with_only_a_use_pushed_searches_for_the_rest(repo: Path) -> None:
    uses = (repo / "tests/test_cart.py").read_text()
    pushed = (f"rename total_price to cart_total\n\ntests/test_cart.py\n```python\n{uses}"
              "```\n")
    tools = RepoTools(repo)
    rounds, _ = converse(RulesBrain(), pushed, tools)
    assert [name for name, _ in tools.log] == ["search", "read_file", "read_file"]
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}


def test_rules_named_file_is_not_searched_around(repo: Path) -> None:
    cart = (repo / "src/shop/cart.py").read_text()
    pushed = ("rename total_price to cart_total in cart.py\n\n"
              f"src/shop/cart.py\n```python\n{cart}```\n")
    tools = RepoTools(repo)
    rounds, _ = converse(RulesBrain(), pushed, tools)
    assert tools.log == [] and len(rounds) == 1
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py"}


def test_rules_one_call_a_response_when_parallel_calls_are_off(repo: Path) -> None:
    rounds, _ = converse(RulesBrain(), "rename total_price to cart_total", RepoTools(repo),
                         parallel=False)
    assert [len(r.calls) for r in rounds] == [1, 1, 1, 1, 0]
    assert "cart_total" in rounds[-1].text


def test_rules_finds_a_named_file_it_was_not_given(repo: Path) -> None:
    tools = RepoTools(repo)
    rounds, _ = converse(RulesBrain(), "add a docstring to format_total in cart.py", tools)
    assert [c.name for r in rounds for c in r.calls] == ["list_files", "read_file"]
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py"}
    assert '"""Format total.' in (repo / "src/shop/cart.py").read_text()


def test_rules_reads_a_windowed_file_to_its_end(repo: Path) -> None:
    tools = RepoTools(repo, window=10)
    rounds, _ = converse(RulesBrain(), "rename format_total to total_text", tools)
    reads = [args for name, args in tools.log if name == "read_file"
             and args["path"] == "src/shop/cart.py"]
    assert [r.get("start_line", 1) for r in reads] == [1, 11, 21, 31]
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}


def test_rules_says_what_it_could_not_find(repo: Path) -> None:
    rounds, _ = converse(RulesBrain(), "rename nowhere_symbol to x", RepoTools(repo))
    assert [c.name for r in rounds for c in r.calls] == ["search"]
    assert rounds[-1].text.startswith("I searched the repo for `\\bnowhere_symbol\\b`: "
                                      "no matches.\n")


def test_a_read_error_is_reported_and_the_rest_still_edited(repo: Path) -> None:
    brain = RulesBrain()
    prompt = "rename total_price to cart_total"
    conversation = (BrainTurn("user", prompt),
                    BrainTurn("function_call", '{"pattern": "\\\\btotal_price\\\\b"}', "c1",
                              "search"),
                    BrainTurn("function_call_output",
                              "src/shop/cart.py:28:def total_price(cart):\n"
                              "gone.py:1:total_price", "c1"))
    got = answer(brain, BrainRequest("m", "", conversation, "search_replace", TOOL_NAMES))
    assert [c.arguments for c in got.calls] == ['{"path": "src/shop/cart.py"}',
                                                '{"path": "gone.py"}']
    tools = RepoTools(repo)
    conversation += (BrainTurn("function_call", got.calls[0].arguments, "c2", "read_file"),
                     BrainTurn("function_call", got.calls[1].arguments, "c3", "read_file"),
                     BrainTurn("function_call_output", tools.read("src/shop/cart.py", 1, None),
                               "c2"),
                     BrainTurn("function_call_output", "error: gone.py does not exist", "c3"))
    final = answer(brain, BrainRequest("m", "", conversation, "search_replace", TOOL_NAMES))
    assert not final.calls
    assert final.text.startswith("I could not read gone.py: error: gone.py does not exist\n")
    assert apply(final.text, repo) == {"src/shop/cart.py"}


def test_the_rounds_are_bounded(repo: Path) -> None:
    tools = RepoTools(repo, window=2)  # a window so small it never ends in time
    rounds, _ = converse(RulesBrain(), "rename format_total to total_text", tools)
    assert len(rounds) == MAX_ROUNDS + 1 and not rounds[-1].calls
    assert f"I stopped looking after {MAX_ROUNDS} rounds" in rounds[-1].text


def test_without_the_three_tools_the_brains_answer_as_before(repo: Path) -> None:
    for tools in (frozenset(), frozenset({"search", "read_file"})):
        request = BrainRequest("m", "", (BrainTurn("user", "rename total_price to x"),),
                               "search_replace", tools)
        got = answer(RulesBrain(), request)
        assert not got.calls and "There are no files in this request" in got.text
        got = answer(DeepBrain(), request)
        assert not got.calls


def test_deep_documents_every_function_of_a_folder(repo: Path) -> None:
    tools = RepoTools(repo)
    rounds, _ = converse(DeepBrain(), "add a docstring to every function in src/shop", tools)
    assert [[c.name for c in r.calls] for r in rounds] == [
        ["list_files"], ["read_file"] * 3, []]
    assert tools.log[0] == ("list_files", {"path": "src/shop"})
    assert rounds[-1].text.startswith("I read 3 files")
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "src/shop/pricing.py"}
    cart = (repo / "src/shop/cart.py").read_text()
    for name in ("add", "remove", "total_price", "format_total"):
        assert f"def {name}(" in cart
    assert cart.count('"""') >= 2 * 4 + 2
    assert (repo / "web/cart.js").read_text() == (EXAMPLE / "web/cart.js").read_text()


def test_deep_keeps_to_the_folder_even_with_other_files_pushed(repo: Path) -> None:
    pushed = "tests/test_cart.py\n```python\n" + (repo / "tests/test_cart.py").read_text() \
        + "```\n"
    rounds, _ = converse(DeepBrain(), "add a docstring to every function in src/shop\n\n"
                         + pushed, RepoTools(repo))
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "src/shop/pricing.py"}


def test_deep_rename_searches_the_whole_repo(repo: Path) -> None:
    tools = RepoTools(repo)
    rounds, _ = converse(DeepBrain(), "rename total_price to cart_total", tools)
    assert tools.log[0] == ("search", {"pattern": "\\btotal_price\\b"})
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}


MAP = ("Repository map: signature lines of the most referenced definitions in files not "
       "shown in full here (skipped lines marked ⋮). Ask for a file before editing it.\n"
       "~~~\nsrc/shop/cart.py:\n⋮\n  def total_price(cart):\n~~~\n\n")
"""The first message of a turn as spark's client sends it: the map, then the prompt."""


def test_the_repo_maps_caption_is_not_a_step(repo: Path) -> None:
    rounds, _ = converse(DeepBrain(), MAP + "add a docstring to every function in src/shop\n",
                         RepoTools(repo))
    assert "worked out 1 step." in rounds[-1].text and "skip" not in rounds[-1].text
    rounds, _ = converse(RulesBrain(), MAP + "rename total_price to cart_total\n",
                         RepoTools(repo))
    assert apply(rounds[-1].text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}

"""Rules brain: explain, the help answer, files from the instructions, continued conversations."""

from __future__ import annotations

from brain_harness import apply_answer, ask, edits_of, request

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.protocol.files import FileBlock, render_file_blocks

PY = '''import os
from typing import Any


def top(a):
    return a


class K:
    def m(self):
        return 1
'''


def test_explain_lists_imports_and_nested_definitions() -> None:
    answer = ask("explain a.py", {"a.py": PY, "b.txt": "notes\n"})
    assert answer.splitlines()[0] == "Here is an outline of a.py:"
    assert "**a.py** — python, 11 lines." in answer
    assert "- `import os` (line 1)" in answer
    assert "- `def top(a)` (lines 5-6)" in answer
    assert "- `class K` (lines 9-11)\n  - `def m(self)` (lines 10-11)" in answer
    assert "b.txt" not in answer and "<<<<<<<" not in answer
    assert answer.endswith("That is the structure of 1 file; I made no edits.\n")


def test_explain_text_file() -> None:
    answer = ask("explain notes.txt", {"notes.txt": "hello\nworld\n"})
    assert "plain text, 2 lines" in answer and "    hello\n" in answer


def test_unrecognised_instruction_gets_the_list_and_providers() -> None:
    answer = ask("write me a poem about the sea", {"a.py": PY})
    assert "could not match that to an instruction" in answer
    for example in ("rename foo to bar", "add a docstring to foo", "explain foo.py",
                    "--provider", "OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY",
                    "docs/providers.md"):
        assert example in answer


def test_no_files_explains() -> None:
    answer = ask("rename foo to bar", {})
    assert answer.startswith("There are no files in this request")
    assert "--provider" in answer


def test_code_inside_file_blocks_is_not_an_instruction() -> None:
    answer = ask("hello", {"a.py": "# rename foo to bar\nfoo = 1\n"})
    assert "could not match" in answer


def test_files_in_the_instructions_are_seen() -> None:
    instructions = "You are a coding model.\n\n" + render_file_blocks(
        [FileBlock("a.py", "foo = 1\n")])
    req = BrainRequest("spark-rules", instructions, (BrainTurn("user", "rename foo to bar"),),
                       "search_replace")
    [edit] = edits_of("".join(RulesBrain().answer(req)))
    assert (edit.path, edit.hunks[0].replace) == ("a.py", "bar = 1\n")


def test_continued_conversation_sees_its_own_earlier_edits(tmp_path) -> None:
    files = {"a.py": "def foo():\n    print('x')\n    return 1\n"}
    first = ask("rename foo to bar", files)
    history = (request("rename foo to bar", files).conversation[0],
               BrainTurn("assistant", first))
    # the client does not re-send the file: the brain replays its own edit
    second = "".join(RulesBrain().answer(request("remove print calls", {}, history=history)))
    after_first = apply_answer(first, files, tmp_path)
    final = apply_answer(second, after_first, tmp_path)
    assert final["a.py"] == "def bar():\n    return 1\n"


def test_latest_file_block_wins() -> None:
    old = request("explain a.py", {"a.py": "x = 1\n"}).conversation[0]
    answer = ask("rename y to z", {"a.py": "y = 2\n"}, history=(old, BrainTurn("assistant", "ok")))
    [edit] = edits_of(answer)
    assert edit.hunks[0].search == "y = 2\n"


def test_apply_patch_format_is_one_envelope() -> None:
    answer = ask("rename foo to bar", {"a.py": "foo = 1\n", "b.py": "foo = 2\n"},
                 fmt="apply_patch")
    assert answer.count("*** Begin Patch") == 1 and answer.count("*** Update File:") == 2
    assert "<<<<<<<" not in answer

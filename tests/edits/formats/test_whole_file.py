"""whole_file: what an answer without an edit block held, and when a fence is a whole file."""

from __future__ import annotations

from spark_cli.edits.formats.whole_file import fences, looks_whole, no_edit, whole_file_text

OLD = "def f():\n    return 1\n\n\ndef g():\n    return 2\n"
NEW = "def f():\n    return 10\n\n\ndef g():\n    return 2\n"


def test_fences_finds_closed_ones_only():
    text = "a\n```python\nx = 1\n```\nb\n~~~\ny\n~~~\n```\nopen"
    assert [(f.info, f.text) for f in fences(text)] == [("python", "x = 1\n"), ("", "y\n")]


def test_a_longer_fence_closes_only_with_as_many_marks():
    assert fences("````\n```\ninner\n```\n````\n")[0].text == "```\ninner\n```\n"


def test_looks_whole():
    assert looks_whole(OLD, NEW)
    assert not looks_whole(OLD, "def f():\n    return 10\n")


def test_no_edit_kinds():
    assert no_edit("", "search_replace", {"a.py": OLD}).kind == "empty"
    prose = no_edit("It is fine.", "apply_patch", {"a.py": OLD})
    assert prose.message == "the answer was prose only (3 words); no *** Begin Patch envelope"
    whole = no_edit(f"```python\n{NEW}```\n", "search_replace", {"a.py": OLD})
    assert whole.message == ("the answer held a whole file in a fence (6 lines); "
                             "no SEARCH/REPLACE block")
    assert no_edit("```\nx\n```", "search_replace", {"a.py": OLD}).kind == "snippet"


def test_whole_file_text():
    assert whole_file_text(f"Here:\n```python\n{NEW}```\n", OLD) == NEW
    assert whole_file_text(f"```python\n{OLD}```\n", OLD) is None  # unchanged
    assert whole_file_text(f"```python\n{NEW}```\n", OLD, lambda text: False) is None
    two = f"```python\n{NEW}```\nor\n```python\n{NEW.replace('10', '11')}```\n"
    assert whole_file_text(two, OLD) is None  # which one is a guess
    no_newline = OLD.rstrip("\n")
    assert whole_file_text(f"```\n{NEW}```", no_newline) == NEW.rstrip("\n")


def test_no_edit_after_tool_calls():
    only = no_edit("", "search_replace", {}, tools=("read_file", "search", "read_file"))
    assert only.kind == "tools_only"
    assert only.message == ("the answer only called tools (read_file ×2, search) and made no "
                            "edit; no SEARCH/REPLACE block")
    prose = no_edit("Looks fine.", "search_replace", {}, tools=("read_file",))
    assert prose.message == ("the answer was prose only (2 words, after calling read_file); "
                             "no SEARCH/REPLACE block")

"""``/copy``'s choice of text: the last answer, its last code block that is not an edit."""

from __future__ import annotations

from spark_cli.protocol.channel import Message, ToolCall
from spark_cli.tui.commands.copying import code_blocks, last_answer, last_code, line_count


def test_the_last_answer_skips_tool_calls_and_empty_messages() -> None:
    call = ToolCall("c1", "search", "{}")
    history = [Message("user", "q"), Message("assistant", "first"), Message("user", "again"),
               Message("assistant", "second"), call, Message("assistant", "  ")]
    assert last_answer(history) == "second"
    assert last_answer([Message("user", "q")]) is None


def test_code_blocks_know_fences_of_either_kind_and_length() -> None:
    text = ("a\n```py\nx = 1\n```\n~~~\ny\n~~~\n````md\n```\ninner\n```\n````\n"
            "```\nunclosed\n")
    assert code_blocks(text) == ["x = 1\n", "y\n", "```\ninner\n```\n", "unclosed\n"]


def test_edit_blocks_are_not_the_code_to_copy() -> None:
    edit = "```\napp.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n```\n"
    patch = "```\n*** Begin Patch\n*** Update File: a.py\n*** End Patch\n```\n"
    assert last_code("```sh\nmake\n```\n" + edit + patch) == "make\n"
    assert last_code(edit) is None


def test_a_copied_text_is_counted_in_lines() -> None:
    assert line_count("one") == "1 line"
    assert line_count("one\n") == "1 line"
    assert line_count("a\nb\nc") == "3 lines"
    assert line_count("a\nb\n") == "2 lines"

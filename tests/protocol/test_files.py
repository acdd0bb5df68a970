from hypothesis import given
from hypothesis import strategies as st

from spark_cli.protocol.files import FileBlock, parse_file_blocks, render_file_blocks


def test_round_trip_with_prose_around() -> None:
    blocks = [FileBlock("src/app.py", "def f():\n    return 1\n", "python"), FileBlock("a.txt", "")]
    text = "Rename f to g.\n\n" + render_file_blocks(blocks) + "\nThanks"
    assert parse_file_blocks(text) == blocks


def test_content_with_backtick_fences_survives() -> None:
    block = FileBlock("README.md", "```sh\nmake\n```\n", "markdown")
    assert parse_file_blocks(render_file_blocks([block])) == [block]


def test_no_final_newline_is_kept() -> None:
    block = FileBlock("x.py", "print(1)")
    assert "(no final newline)" in render_file_blocks([block])
    assert parse_file_blocks(render_file_blocks([block])) == [block]


def test_unclosed_fence_is_not_a_file() -> None:
    assert parse_file_blocks("a.py\n```python\nprint(1)\n") == []


def test_prose_line_before_a_fence_is_not_a_path() -> None:
    assert parse_file_blocks("Here is the code:\n```\nx\n```\n") == []


paths = st.from_regex(r"[a-z]{1,8}(/[a-z]{1,8}){0,2}\.[a-z]{1,3}", fullmatch=True)


@given(st.lists(st.tuples(paths, st.text(st.characters(exclude_characters="\r")))))
def test_any_content_round_trips(items: list[tuple[str, str]]) -> None:
    blocks = [FileBlock(p, c) for p, c in items]
    assert parse_file_blocks(render_file_blocks(blocks)) == blocks

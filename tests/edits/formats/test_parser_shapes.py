"""Shapes real model answers take that the parser must read right: dividers that are
heading underlines, blocks indented in list items, paths named in prose, CRLF, a BOM."""

from __future__ import annotations

import pytest
from parse_harness import edits, parse, prose, rejected

from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit


def sr(search: str, replace: str, n: int = 7) -> str:
    return f"{'<' * n} SEARCH\n{search}{'=' * n}\n{replace}{'>' * n} REPLACE\n"


def one(text: str) -> tuple[str, str, str]:
    (edit,) = edits(parse(text))
    return edit.path, edit.hunks[0].search, edit.hunks[0].replace


# -- the divider ----------------------------------------------------------------------
def test_rst_underline_in_search_is_not_the_divider() -> None:
    search = "Usage\n=====\n\nRun it.\n"
    replace = "Usage\n=====\n\nRun it with --help.\n"
    assert one("README.rst\n```rst\n" + sr(search, replace) + "```\n") == (
        "README.rst", search, replace)


def test_underline_as_long_as_the_markers_is_told_by_its_title() -> None:
    search = "License\n=======\n\nMIT\n"
    replace = "License\n=======\n\nApache-2.0\n"
    assert one("README.rst\n" + sr(search, replace)) == ("README.rst", search, replace)


@pytest.mark.parametrize("search, replace", [
    ("", "Install\n=======\n\npip install it\n"),  # a heading only in REPLACE
    ("Install\n=======\n\nold\n", "new\n"),  # a heading only in SEARCH
    ("intro\n", "=======\nLicense\n=======\n"),  # an overlined title in REPLACE
])
def test_headings_on_either_side(search: str, replace: str) -> None:
    assert one("doc.rst\n" + sr(search, replace)) == ("doc.rst", search, replace)


def test_git_conflict_being_resolved_keeps_its_own_divider() -> None:
    search = "<<<<<<< HEAD\nx = 1\n=======\nx = 2\n>>>>>>> feature\n"
    assert one("a.py\n" + sr(search, "x = 2\n")) == ("a.py", search, "x = 2\n")


def test_the_divider_after_which_replace_repeats_search_wins() -> None:
    replace = "Title\n=======\n\nIntro\n"  # 'Title' became a heading, of another width
    assert one("doc.md\n" + sr("Title\n", replace)) == ("doc.md", "Title\n", replace)
    search = "intro\n\nUsage\n=======\n"
    assert one("doc.md\n" + sr(search, "intro\n")) == ("doc.md", search, "intro\n")


def test_ambiguous_dividers_are_refused_with_advice() -> None:
    items = parse("doc.md\n" + sr("a\n", "b\n=======\nc\n"))
    assert edits(items) == []
    (rej,) = rejected(items)
    assert rej.line == 8 and rej.path == "doc.md"
    assert "lines 4, 6" in rej.message and "9-character markers" in rej.message
    assert "<<<<<<<<< SEARCH" in rej.message


def test_markers_of_another_length_resolve_it() -> None:
    assert one("doc.md\n" + sr("a\n", "b\n=======\nc\n", n=9)) == (
        "doc.md", "a\n", "b\n=======\nc\n")


def test_block_is_only_emitted_at_replace() -> None:
    parser = EditStreamParser()
    out = parser.feed("a.md\n<<<<<<< SEARCH\nx\n=======\ny\n=======\n")
    assert not any(isinstance(i, (FileEdit, BlockRejected)) for i in out)


# -- indentation ----------------------------------------------------------------------
def test_block_indented_in_a_list_item_loses_the_list_indent() -> None:
    text = ("1. Add module:\n\n   pkg/mod.py\n   ```python\n   <<<<<<< SEARCH\n   =======\n"
            "   def h():\n       return 3\n\n   x = 1\n   >>>>>>> REPLACE\n   ```\n2. Done.\n")
    items = parse(text)
    assert one(text) == ("pkg/mod.py", "", "def h():\n    return 3\n\nx = 1\n")
    assert prose(items) == "1. Add module:\n\n2. Done.\n"


def test_indent_is_kept_when_a_line_lacks_it() -> None:
    text = "a.py\n  <<<<<<< SEARCH\n  x\ny\n  =======\n  z\n  >>>>>>> REPLACE\n"
    assert one(text) == ("a.py", "  x\ny\n", "  z\n")


# -- paths ----------------------------------------------------------------------------
def test_a_word_with_a_colon_is_not_a_path() -> None:
    text = "a.py\n```python\n" + sr("a\n", "b\n") + "```\nNext:\n```python\n" + sr(
        "c\n", "d\n") + "```\n"
    items = parse(text)
    assert [e.path for e in edits(items)] == ["a.py", "a.py"] and not rejected(items)
    assert prose(items) == "Next:\n"


def test_no_path_refusal_never_names_a_prose_word() -> None:
    (rej,) = rejected(parse("Changes:\n```python\n" + sr("a\n", "b\n") + "```\n"))
    assert rej.path is None and "no file path" in rej.message


@pytest.mark.parametrize("line", [
    "In `src/app.py`:", "### Update `src/app.py`", "1. `src/app.py`", "- **src/app.py**",
    "Now change `src/app.py` as well:", "**In `src/app.py`:**", "src/app.py (new file)",
    "Edit src/app.py:", "> In `src/app.py`, replace `f()` with `g()`:",
])
def test_prose_line_naming_one_file_before_a_block(line: str) -> None:
    items = parse(f"{line}\n\n```python\n" + sr("a\n", "b\n") + "```\n")
    assert [e.path for e in edits(items)] == ["src/app.py"]
    assert prose(items) == f"{line}\n\n"  # the line stays visible


@pytest.mark.parametrize("line", [
    "This keeps `config.py` unchanged.",  # not introducing the block
    "Rename `src/a.py` to `src/b.py`:",  # two files
    "Use `os.path.join` here:",  # not a file
    "Install Node:",
])
def test_prose_lines_that_do_not_name_the_block_file(line: str) -> None:
    text = "first.py\n" + sr("a\n", "b\n") + f"{line}\n```python\n" + sr("c\n", "d\n") + "```\n"
    assert [e.path for e in edits(parse(text))] == ["first.py", "first.py"]


def test_prose_naming_another_file_switches_from_the_previous_block() -> None:
    text = ("app.py\n```python\n" + sr("a\n", "b\n") + "```\n\nNow update the tests in "
            "`tests/test_app.py` as well:\n\n```python\n" + sr("c\n", "d\n") + "```\n")
    assert [e.path for e in edits(parse(text))] == ["app.py", "tests/test_app.py"]


def test_a_mention_two_lines_up_does_not_count() -> None:
    text = "a.py\n" + sr("a\n", "b\n") + "In `b.py`:\n\n\n" + sr("c\n", "d\n")
    assert [e.path for e in edits(parse(text))] == ["a.py", "a.py"]


@pytest.mark.parametrize("head", [
    "```typescript\n// src/app.ts\n", "```ts\n/* src/app.ts */\n", "<!-- src/app.ts -->\n```\n",
    "```\n-- src/app.ts\n", "```ts title=\"src/app.ts\"\n", "```ts filename=src/app.ts\n",
])
def test_path_in_a_comment_or_fence_attribute(head: str) -> None:
    text = f"{head}" + sr("a\n", "b\n") + "```\n"
    items = parse(text)
    assert [e.path for e in edits(items)] == ["src/app.ts"] and prose(items) == ""


def test_comment_line_inside_search_is_text_not_a_path() -> None:
    assert one("a.ts\n" + sr("// src/app.ts\nx\n", "y\n")) == ("a.ts", "// src/app.ts\nx\n", "y\n")


def test_path_with_spaces_in_backticks() -> None:
    items = parse("`docs/My Notes.md`\n```\n" + sr("a\n", "b\n") + "```\n")
    assert [e.path for e in edits(items)] == ["docs/My Notes.md"]


@pytest.mark.parametrize("marker", ["<<<<<<< SEARCH src/a.py", "<<<<<<< SEARCH: src/a.py",
                                    "<<<<<<< SEARCH `src/a.py`"])
def test_path_on_the_search_line(marker: str) -> None:
    text = "other.py\n" + marker + "\nx\n=======\ny\n>>>>>>> REPLACE\n"
    assert one(text) == ("src/a.py", "x\n", "y\n")


def test_search_followed_by_a_word_is_not_a_marker() -> None:
    items = parse("a.py\n<<<<<<< SEARCH here\n")
    assert edits(items) == [] and rejected(items) == []


@pytest.mark.parametrize("name", ["Makefile", "Dockerfile", ".gitignore", "go.mod", "LICENSE"])
def test_bare_filenames(name: str) -> None:
    assert one(f"{name}:\n```\n" + sr("a\n", "b\n") + "```\n")[0] == name


# -- closing on one line, CRLF, BOM ------------------------------------------------------
def test_replace_marker_with_the_closing_fence_on_its_line() -> None:
    text = "a.py\n```python\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE```\nAfter.\n"
    items = parse(text)
    assert one(text) == ("a.py", "x\n", "y\n") and prose(items) == "After.\n"


@pytest.mark.parametrize("head", ["File: src/app.py", "src/app.py", "`src/app.py`",
                                  "## src/app.py", "// src/app.py"])
def test_crlf_path_line_split_before_its_newline(head: str) -> None:
    body = "<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\n"
    parser = EditStreamParser()
    items = parser.feed(head + "\r") + parser.feed("\n" + body) + parser.close()
    assert [e.path for e in edits(items)] == ["src/app.py"] and not rejected(items)


def test_leading_bom_is_dropped() -> None:
    parser = EditStreamParser()
    items = parser.feed("\ufeff") + parser.feed("a.py\n" + sr("x\n", "y\n")) + parser.close()
    assert [e.path for e in edits(items)] == ["a.py"]
    items = parse("\ufeff*** Begin Patch\n*** Delete File: b.py\n*** End Patch\n")
    assert [e.path for e in edits(items)] == ["b.py"] and prose(items) == ""


def test_colon_inside_bold_path() -> None:
    assert one("**src/app.py:**\n```\n" + sr("a\n", "b\n") + "```\n")[0] == "src/app.py"


def test_envelope_paths_in_backticks() -> None:
    items = parse("*** Begin Patch\n*** Update File: `src/a.py`\n*** Move to: `src/b.py`\n@@\n"
                  "-a\n+b\n*** Delete File: 'c.py'\n*** End Patch\n")
    assert [(e.path, e.move_to) for e in edits(items)] == [("src/a.py", "src/b.py"),
                                                           ("c.py", None)]


def test_a_sentence_naming_one_file_names_the_first_pathless_block() -> None:
    block = sr("old\n", "new\n")
    items = parse("Let's fix the greeting in src/app.py.\n\n" + block + "Also this:\n\n" + block)
    assert [e.path for e in edits(items)] == ["src/app.py", "src/app.py"]


def test_a_sentence_never_names_a_file_to_create_nor_beats_the_previous_block() -> None:
    create = "<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n"
    items = parse("This mirrors src/util.py.\n\n" + create)
    assert not edits(items) and rejected(items)
    block = sr("old\n", "new\n")
    items = parse("a.py\n" + block + "This mirrors src/util.py.\n\n" + block)
    assert [e.path for e in edits(items)] == ["a.py", "a.py"]


@pytest.mark.parametrize("tag", ['<file path="src/app.py">', "<file name='src/app.py'>",
                                 '<file path="src/app.py" language="python">'])
def test_a_file_tag_names_the_block(tag: str) -> None:
    items = parse(f"{tag}\n" + sr("old\n", "new\n") + "</file>\n")
    assert [e.path for e in edits(items)] == ["src/app.py"] and prose(items) == "</file>\n"

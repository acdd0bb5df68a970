"""The streaming edit parser on malformed input: precise rejections, then a clean recovery."""

from __future__ import annotations

import pytest
from parse_harness import edits, parse, prose, rejected

GOOD = "b.py\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n"


def test_missing_divider() -> None:
    items = parse("a.py\n<<<<<<< SEARCH\nx\ny\n>>>>>>> REPLACE\n" + GOOD)
    (rej,) = rejected(items)
    assert rej.line == 5 and rej.path == "a.py"
    assert "expected '======='" in rej.message and "a.py" in rej.message
    assert rej.message.startswith("line 5:")
    assert rej.raw == "<<<<<<< SEARCH\nx\ny\n>>>>>>> REPLACE\n"
    assert [e.path for e in edits(items)] == ["b.py"]


def test_missing_replace_then_next_block_recovers() -> None:
    items = parse("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n" + GOOD)
    (rej,) = rejected(items)
    assert "'>>>>>>> REPLACE'" in rej.message and "a.py" in rej.message and rej.line == 7
    assert [e.path for e in edits(items)] == ["b.py"]


def test_missing_divider_and_replace_then_next_block_reuses_the_path() -> None:
    items = parse("a.py\n<<<<<<< SEARCH\nx\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
    (rej,) = rejected(items)
    assert "expected '=======' to end the SEARCH part" in rej.message
    assert [e.path for e in edits(items)] == ["a.py"]


def test_replace_without_search() -> None:
    items = parse("Some text here.\n>>>>>>> REPLACE\nmore text here\n")
    (rej,) = rejected(items)
    assert "without an open '<<<<<<< SEARCH'" in rej.message and rej.line == 2
    assert prose(items) == "Some text here.\nmore text here\n"


def test_block_without_a_path() -> None:
    items = parse("Change it like this:\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE\n")
    (rej,) = rejected(items)
    assert rej.path is None and "no file path" in rej.message and rej.line == 2
    assert edits(items) == []


@pytest.mark.parametrize("cut", ["<<<<<<< SEARCH\nx\n", "<<<<<<< SEARCH\nx\n=======\ny\n",
                                 "<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPL"])
def test_unfinished_block_is_never_an_edit(cut: str) -> None:
    items = parse("a.py\n" + cut)
    (rej,) = rejected(items)
    assert rej.message.count("unfinished SEARCH/REPLACE block for a.py") == 1
    assert edits(items) == []


def test_envelope_marker_inside_search_block_ends_it() -> None:
    text = "a.py\n<<<<<<< SEARCH\nx\n*** Begin Patch\n*** Delete File: c.py\n*** End Patch\n"
    items = parse(text)
    (rej,) = rejected(items)
    assert "got '*** Begin Patch'" in rej.message and rej.path == "a.py"
    assert [e.path for e in edits(items)] == ["c.py"]


def test_envelope_without_end_patch() -> None:
    items = parse("*** Begin Patch\n*** Delete File: a.py\n*** Update File: b.py\n@@\n-x\n+y\n")
    assert [e.path for e in edits(items)] == ["a.py"]  # closed by the next header
    (rej,) = rejected(items)
    assert "unfinished *** Update File: b.py" in rej.message and "'*** End Patch'" in rej.message
    assert rej.path == "b.py"


def test_update_file_without_path() -> None:
    items = parse("*** Begin Patch\n*** Update File:\n@@\n-x\n+y\n*** Delete File: c.py\n"
                  "*** End Patch\n")
    (rej,) = rejected(items)
    assert "'*** Update File:' needs a relative path" in rej.message and rej.line == 2
    assert [e.path for e in edits(items)] == ["c.py"]


def test_unprefixed_lines_are_context_lines_that_lost_their_space() -> None:
    text = ("*** Begin Patch\n*** Update File: a.go\n@@\nfunc f() {\n-\tx()\n+\ty()\n\t"
            "z()\n*** End Patch\n")
    (edit,) = edits(parse(text))
    # trailing ones are dropped: the hunk is placed by its other lines
    assert edit.hunks[0].search == "func f() {\n\tx()\n"
    assert edit.hunks[0].replace == "func f() {\n\ty()\n"
    (edit,) = edits(parse(text.replace("\tz()\n", "")
                          .replace("@@\nfunc f() {\n", "@@\n+// note\nfunc f() {\n")))
    assert edit.hunks[0].search == "func f() {\n\tx()\n"  # leading ones are context


def test_unprefixed_lines_after_an_added_only_hunk_are_its_place() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n@@\n+import sys\n"
                          "import os\n*** End Patch\n"))
    assert (edit.hunks[0].search, edit.hunks[0].replace) == ("import os\n",
                                                             "import sys\nimport os\n")


def test_prose_between_hunks_is_dropped() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n@@\n-a\n+b\n"
                          "Now the second change:\n@@\n-c\n+d\n*** End Patch\n"))
    assert [(h.search, h.replace) for h in edit.hunks] == [("a\n", "b\n"), ("c\n", "d\n")]


def test_prose_then_a_fence_ends_an_envelope_without_end_patch() -> None:
    text = ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\nThat is all for a.\n\n"
            "b.py\n```python\n<<<<<<< SEARCH\nb\n=======\nB\n>>>>>>> REPLACE\n```\n")
    items = parse(text)
    (rej,) = rejected(items)
    assert rej.line == 6 and rej.path == "a.py"
    assert "unknown hunk line 'That is all for a.' in *** Update File: a.py" in rej.message
    assert "' ' (context" in rej.message and "'-' (remove)" in rej.message
    assert [e.path for e in edits(items)] == ["b.py"]  # the held path line is a path again
    assert "That is all for a.\n\n" in prose(items)


def test_prose_then_the_answer_ends_gives_the_prose_back() -> None:
    items = parse("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\nThat is all.\n")
    (rej,) = rejected(items)
    assert "unfinished *** Update File: a.py" in rej.message and not edits(items)
    assert prose(items).endswith("That is all.\n")


def test_prose_then_the_next_envelope_keeps_both_sections() -> None:
    text = ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\nNow b:\n*** Begin Patch\n"
            "*** Update File: b.py\n@@\n-p\n+q\n*** End Patch\n")
    items = parse(text)
    assert [e.path for e in edits(items)] == ["a.py", "b.py"] and not rejected(items)
    assert edits(items)[0].hunks[0].search == "x\n" and "Now b:\n" in prose(items)


def test_padded_markers() -> None:
    text = " *** Begin Patch\n  *** Update File: a.py\n@@\n x\n-y\n+z\n *** End Patch\nDone.\n"
    items = parse(text)
    (edit,) = edits(items)
    assert edit.hunks[0].search == "x\ny\n" and not rejected(items)
    assert prose(items) == "Done.\n"


def test_padded_end_patch_at_the_end_of_the_answer() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n@@\n-y\n+z\n *** End Patch"))
    assert edit.hunks[0].replace == "z\n"


def test_prose_after_envelope_missing_end_patch_does_not_swallow_later_blocks() -> None:
    text = ("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\nThat is all for a.\n" + GOOD)
    items = parse(text)
    assert len(rejected(items)) == 1 and [e.path for e in edits(items)] == ["b.py"]


def test_update_without_hunks() -> None:
    (rej,) = rejected(parse("*** Begin Patch\n*** Update File: a.py\n*** End Patch\n"))
    assert "*** Update File: a.py has no hunks" in rej.message


def test_hunk_header_without_lines() -> None:
    (rej,) = rejected(parse("*** Begin Patch\n*** Update File: a.py\n@@ def f\n*** End Patch\n"))
    assert "has no lines" in rej.message


def test_move_to_after_hunks() -> None:
    items = parse("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Move to: b.py\n"
                  "@@\n-z\n+w\n*** Delete File: c.py\n*** End Patch\n")
    (rej,) = rejected(items)
    assert "'*** Move to:' must follow '*** Update File:' directly" in rej.message
    assert [e.path for e in edits(items)] == ["c.py"]
    assert prose(items) == ""  # the rest of the broken section is skipped, not shown


def test_delete_with_lines() -> None:
    (rej,) = rejected(parse("*** Begin Patch\n*** Delete File: a.py\n-x\n*** End Patch\n"))
    assert "*** Delete File: a.py takes no lines" in rej.message


def test_add_file_lines_without_plus_are_its_lines_when_a_marker_follows() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Add File: a.md\n+x\ny\n- item\n*** End Patch\n"))
    assert edit.hunks[0].replace == "x\ny\n- item\n"
    (edit,) = edits(parse("*** Begin Patch\n*** Add File: a.py\nx = 1\n\ny = 2\n*** End Patch\n"))
    assert edit.hunks[0].replace == "x = 1\n\ny = 2\n"


def test_add_file_lines_without_plus_then_a_fence_are_prose() -> None:
    items = parse("*** Begin Patch\n*** Add File: a.py\n+x\nThat is the file.\n```\n")
    (rej,) = rejected(items)
    assert "must start with '+', got 'That is the file.'" in rej.message and rej.line == 4
    assert "That is the file.\n" in prose(items) and not edits(items)


def test_garbage_right_after_begin_patch() -> None:
    items = parse("*** Begin Patch\nhello there friend\n*** End Patch\n")
    (rej,) = rejected(items)
    assert "expected a '*** Add File:'" in rej.message
    assert prose(items) == "hello there friend\n"


def test_lines_after_end_of_file_marker() -> None:
    items = parse("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** End of File\n-z\n"
                  "*** End Patch\n")
    (rej,) = rejected(items)
    assert "after '*** End of File'" in rej.message and prose(items) == ""


def test_absolute_paths_in_envelope_are_parsed_faithfully() -> None:
    items = parse("*** Begin Patch\n*** Delete File: /etc/passwd\n*** Add File: ../x\n+y\n"
                  "*** End Patch\n")
    assert [e.path for e in edits(items)] == ["/etc/passwd", "../x"]


def test_truncated_envelope_header_rejects_the_open_section() -> None:
    items = parse("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n*** Upd")
    assert edits(items) == [] and len(rejected(items)) == 1


def test_added_file_tolerates_end_of_file_and_space_only_blank_lines() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Add File: a.py\n+x = 1\n \n+y = 2\n"
                          "*** End of File\n*** End Patch\n"))
    assert edit.kind == "add" and edit.hunks[0].replace == "x = 1\n\ny = 2\n"


def test_add_file_first_line_without_plus_reading_like_a_hunk_line() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Add File: a.md\n- item\n some text\n+x\n"
                          "*** End Patch\n"))
    assert edit.hunks[0].replace == "- item\n some text\nx\n"

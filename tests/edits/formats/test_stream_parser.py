"""The streaming edit parser on well-formed input: every accepted form, value in, value out."""

from __future__ import annotations

import pytest

from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit, Hunk, ParsedItem, ProseDelta


def merged(items: list[ParsedItem]) -> list[ParsedItem]:
    out: list[ParsedItem] = []
    for item in items:
        if isinstance(item, ProseDelta) and out and isinstance(out[-1], ProseDelta):
            out[-1] = ProseDelta(out[-1].text + item.text)
        else:
            out.append(item)
    return out


def parse(text: str, step: int | None = None) -> list[ParsedItem]:
    parser = EditStreamParser()
    items: list[ParsedItem] = []
    for i in range(0, len(text), step or max(1, len(text))):
        items.extend(parser.feed(text[i : i + (step or len(text))]))
    items.extend(parser.close())
    result = merged(items)
    if step is None:  # every form must also survive one-character chunks
        assert merged(_one_by_one(text)) == result
    return result


def _one_by_one(text: str) -> list[ParsedItem]:
    parser = EditStreamParser()
    items = [item for ch in text for item in parser.feed(ch)]
    return items + parser.close()


def edits(items: list[ParsedItem]) -> list[FileEdit]:
    return [i for i in items if isinstance(i, FileEdit)]


def prose(items: list[ParsedItem]) -> str:
    return "".join(i.text for i in items if isinstance(i, ProseDelta))


SR_BODY = "<<<<<<< SEARCH\nold line\n=======\nnew line\n>>>>>>> REPLACE\n"


# -- SEARCH/REPLACE ----------------------------------------------------------------
@pytest.mark.parametrize("head, tail", [
    ("src/app.py\n", ""),
    ("`src/app.py`\n", ""),
    ("**src/app.py**\n", ""),
    ("src/app.py:\n", ""),
    ("## src/app.py\n", ""),
    ("src/app.py\n```python\n", "```\n"),
    ("```python\nsrc/app.py\n", "```\n"),
    ("src/app.py\n```\n", "```\n"),
    ("src/app.py\n~~~\n", "~~~\n"),
    ("src/app.py\n````python\n", "````\n"),
    ("```python src/app.py\n", "```\n"),
    ("```python:src/app.py\n", "```\n"),
    ("File: src/app.py\n", ""),
    ("**File:** `src/app.py`\n```\n", "```\n"),
    ("```\n# src/app.py\n", "```\n"),
])
def test_search_replace_path_and_fence_forms(head: str, tail: str) -> None:
    items = parse(f"Lead-in text here.\n{head}{SR_BODY}{tail}Summary of it.\n")
    assert items == [
        ProseDelta("Lead-in text here.\n"),
        FileEdit("update", "src/app.py", (Hunk("old line\n", "new line\n", line=items[1].line),),
                 "search_replace", line=items[1].line),
        ProseDelta("Summary of it.\n"),
    ]


@pytest.mark.parametrize("n", [5, 7, 9])
def test_marker_lengths_5_to_9_are_accepted(n: int) -> None:
    text = f"a.py\n{'<' * n} SEARCH\nx\n{'=' * n}\ny\n{'>' * n} REPLACE\n"
    assert edits(parse(text)) == [FileEdit("update", "a.py", (Hunk("x\n", "y\n", line=2),),
                                           "search_replace", line=2)]


@pytest.mark.parametrize("n", [4, 10])
def test_marker_lengths_outside_5_to_9_are_prose(n: int) -> None:
    text = f"a.py\n{'<' * n} SEARCH\nx\n{'=' * n}\ny\n{'>' * n} REPLACE\n"
    items = parse(text)
    assert edits(items) == [] and prose(items) == text


def test_empty_search_is_an_update_with_empty_search() -> None:
    text = "new.py\n```\n<<<<<<< SEARCH\n=======\nprint('hi')\n>>>>>>> REPLACE\n```\n"
    (edit,) = edits(parse(text))
    assert edit.kind == "update" and edit.hunks[0].search == ""
    assert edit.hunks[0].replace == "print('hi')\n"


def test_several_blocks_after_one_path_in_one_fence() -> None:
    text = ("src/a.py\n```python\n" + SR_BODY + SR_BODY.replace("old", "two") + "```\n"
            "Then other.py\n")
    items = parse(text)
    assert [e.path for e in edits(items)] == ["src/a.py", "src/a.py"]
    assert edits(items)[1].hunks[0].search == "two line\n"
    assert prose(items) == "Then other.py\n"


def test_consecutive_unfenced_blocks_reuse_the_path() -> None:
    items = parse("a.py\n" + SR_BODY + "\n" + SR_BODY)
    assert [e.path for e in edits(items)] == ["a.py", "a.py"]


def test_a_new_path_line_switches_file() -> None:
    items = parse("a.py\n" + SR_BODY + "b.py\n" + SR_BODY)
    assert [e.path for e in edits(items)] == ["a.py", "b.py"]


def test_block_content_keeps_fences_markers_of_other_kinds_and_blank_lines() -> None:
    body = "```\n\n    indented\t\n<<<<<<< HEAD\n*** not a marker\n"
    text = f"README.md\n````\n<<<<<<< SEARCH\n{body}=======\nx\n>>>>>>> REPLACE\n````\n"
    (edit,) = edits(parse(text))
    assert edit.hunks[0].search == body


def test_crlf_stream_is_read_as_lines() -> None:
    text = "a.py\r\n<<<<<<< SEARCH\r\nx\r\n=======\r\ny\r\n>>>>>>> REPLACE\r\nok then\r\n"
    items = parse(text)
    assert edits(items)[0].hunks[0] == Hunk("x\n", "y\n", line=2)
    assert prose(items) == "ok then\r\n"


def test_block_is_emitted_the_moment_replace_line_ends() -> None:
    parser = EditStreamParser()
    first = parser.feed("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE")
    assert not any(isinstance(i, FileEdit) for i in first)
    assert [type(i) for i in parser.feed("\n")] == [FileEdit]
    assert parser.feed("more prose") == [ProseDelta("more prose")]


def test_final_replace_line_without_newline_closes_at_end() -> None:
    assert len(edits(parse("a.py\n<<<<<<< SEARCH\nx\n=======\ny\n>>>>>>> REPLACE"))) == 1


def test_absolute_path_is_parsed_faithfully() -> None:
    (edit,) = edits(parse("/etc/passwd\n" + SR_BODY))
    assert edit.path == "/etc/passwd"


# -- prose ----------------------------------------------------------------------------
def test_plain_prose_is_released_before_its_newline() -> None:
    parser = EditStreamParser()
    assert parser.feed("Hello wor") == [ProseDelta("Hello wor")]
    assert parser.feed("ld, more") == [ProseDelta("ld, more")]
    assert parser.feed("\nNext") == [ProseDelta("\n")]  # "Next" may be a path line


@pytest.mark.parametrize("partial", [
    "src/app.py", "`src/app.py`", "<<<<<<< SEA", "<<", "*** Begin", "```pyth", "~~~ x",
    "apply_patch <<'E", "cat <<EOF |", "$ apply", "## src/a", "   ", ">>>>>>> REP",
])
def test_partial_lines_that_may_start_a_block_are_held(partial: str) -> None:
    parser = EditStreamParser()
    assert parser.feed(partial) == []


def test_prose_only_answer_is_passed_through_exactly() -> None:
    text = ("Sure.\n\n* a bullet with words\n- another one\n`code` first\n```\nsome code\n```\n"
            "> quoted text\n=======\n# Heading here\nlast")
    items = parse(text)
    assert items == [ProseDelta(text)]


# -- apply_patch ------------------------------------------------------------------------
PATCH = """*** Begin Patch
*** Add File: docs/new.md
+# Title
+
+body
*** Delete File: old.txt
*** Update File: src/app.py
*** Move to: src/main.py
@@ class App
@@ def run(self):
     a = 1
-    b = 2
+    b = 3
<SP>
     c = 4
@@
 tail
-end
+END
*** End of File
*** End Patch
""".replace("<SP>", " ")


def test_envelope_sections_in_order() -> None:
    items = parse("Here it is:\n" + PATCH + "Done.\n")
    assert items[0] == ProseDelta("Here it is:\n") and items[-1] == ProseDelta("Done.\n")
    add, delete, update = edits(items)
    assert add == FileEdit("add", "docs/new.md", (Hunk("", "# Title\n\nbody\n", line=3),),
                           "apply_patch", line=3)
    assert delete == FileEdit("delete", "old.txt", (), "apply_patch", line=7)
    assert update.kind == "update" and update.path == "src/app.py"
    assert update.move_to == "src/main.py"
    assert update.hunks == (
        Hunk("    a = 1\n    b = 2\n\n    c = 4\n", "    a = 1\n    b = 3\n\n    c = 4\n",
             ("class App", "def run(self):"), False, 10),
        Hunk("tail\nend\n", "tail\nEND\n", (), True, 17),
    )


def test_blank_line_inside_hunk_is_empty_context_and_trailing_blanks_are_dropped() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@\n x\n\n-y\n+z\n\n\n*** End Patch\n"
    (edit,) = edits(parse(text))
    assert edit.hunks[0].search == "x\n\ny\n" and edit.hunks[0].replace == "x\n\nz\n"


def test_section_is_emitted_when_the_next_header_arrives() -> None:
    parser = EditStreamParser()
    out = parser.feed("*** Begin Patch\n*** Update File: a.py\n@@\n-x\n+y\n")
    assert out == []
    out = parser.feed("*** Delete File: b.py\n")
    assert [e.path for e in out if isinstance(e, FileEdit)] == ["a.py"]
    out = parser.feed("*** End Patch\n")
    assert [e.path for e in out if isinstance(e, FileEdit)] == ["b.py"]


@pytest.mark.parametrize("opener, closer", [
    ("apply_patch <<'EOF'\n", "EOF\n"),
    ("apply_patch <<\"PATCH\"\n", "PATCH\n"),
    ("cat <<EOF | apply_patch\n", "EOF\n"),
    ("```bash\napply_patch <<'EOF'\n", "EOF\n```\n"),
    ("```diff\n", "```\n"),
    ("```\n", "```\n"),
    ("$ apply_patch << 'EOF'\n", "EOF\n"),
    ("bash -lc \"apply_patch <<'EOF'\n", "EOF\"\n"),
])
def test_heredoc_and_fence_wrappers_are_tolerated(opener: str, closer: str) -> None:
    patch = "*** Begin Patch\n*** Update File: a.py\n@@ def f():\n-    x\n+    y\n*** End Patch\n"
    items = parse("Applying.\n" + opener + patch + closer + "Done.\n")
    assert prose(items) == "Applying.\nDone.\n"
    (edit,) = edits(items)
    assert edit.hunks == (Hunk("    x\n", "    y\n", ("def f():",), line=4 + opener.count("\n")),)


def test_unified_diff_style_hunk_header_keeps_only_its_context() -> None:
    text = "*** Begin Patch\n*** Update File: a.py\n@@ -3,2 +3,2 @@ def f():\n-a\n+b\n" \
           "@@ -9 +9 @@\n-c\n+d\n*** End Patch\n"
    (edit,) = edits(parse(text))
    assert [h.anchors for h in edit.hunks] == [("def f():",), ()]


def test_first_hunk_without_at_at_line() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n x\n-y\n+z\n*** End Patch\n"))
    assert edit.hunks == (Hunk("x\ny\n", "x\nz\n", line=3),)


def test_indented_envelope() -> None:
    text = "  *** Begin Patch\n  *** Update File: a.py\n  @@\n  -x\n  +y\n  *** End Patch\n"
    (edit,) = edits(parse(text))
    assert edit.hunks[0].search == "x\n"


def test_context_line_reading_like_a_marker_stays_context() -> None:
    text = "*** Begin Patch\n*** Update File: doc.md\n@@\n *** End Patch\n-a\n+b\n*** End Patch\n"
    (edit,) = edits(parse(text))
    assert edit.hunks[0].search == "*** End Patch\na\n"


def test_end_patch_without_trailing_newline() -> None:
    items = parse("*** Begin Patch\n*** Delete File: a.py\n*** End Patch")
    assert edits(items) == [FileEdit("delete", "a.py", (), "apply_patch", line=2)]


def test_file_header_without_begin_patch_starts_an_envelope() -> None:
    items = parse("*** Update File: a.py\n@@\n-x\n+y\n*** End Patch\nok\n")
    assert [e.path for e in edits(items)] == ["a.py"] and prose(items) == "ok\n"


def test_pure_rename() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n"
                          "*** End Patch\n"))
    assert edit.move_to == "b.py" and edit.hunks == ()


def test_both_formats_mixed_in_one_answer() -> None:
    text = "First:\n" + "a.py\n" + SR_BODY + "Then:\n" + PATCH + "b.py\n```\n" + SR_BODY + "```\n"
    items = parse(text)
    assert [e.fmt for e in edits(items)] == ["search_replace"] + ["apply_patch"] * 3 + [
        "search_replace"]
    assert prose(items) == "First:\nThen:\n"
    assert not any(isinstance(i, BlockRejected) for i in items)


def test_one_blank_line_between_path_and_fence_is_allowed() -> None:
    items = parse("**src/app.py**\n\n```python\n" + SR_BODY + "```\n")
    assert [e.path for e in edits(items)] == ["src/app.py"] and prose(items) == ""


def test_two_blank_lines_after_a_path_line_make_it_prose_that_still_names_the_block() -> None:
    items = parse("src/app.py\n\n\n" + SR_BODY)
    assert prose(items) == "src/app.py\n\n\n"
    assert [e.path for e in edits(items)] == ["src/app.py"]


@pytest.mark.parametrize("head", ["### `src/app.py`\n\n", "**src/app.py**\n\n",
                                  "## Update `src/app.py`\n\n", "src/app.py:4-5\n\n",
                                  "src/app.py\n\n"])
def test_a_heading_or_path_line_names_the_block_under_it_after_a_paragraph(head: str) -> None:
    items = parse(head + "Use an f-string, which reads better\nand is faster.\n\n```python\n"
                  + SR_BODY + "```\n")
    assert [e.path for e in edits(items)] == ["src/app.py"]


def test_a_later_heading_naming_no_file_forgets_the_earlier_one() -> None:
    items = parse("## `a.py`\n\nText.\n\n## Tests\n\nMore text.\n\n" + SR_BODY)
    assert not edits(items) and any(isinstance(i, BlockRejected) for i in items)


def test_a_heading_before_an_earlier_block_does_not_name_a_later_one() -> None:
    items = parse("## `a.py`\n\nb.py\n" + SR_BODY + "Then:\n\n" + SR_BODY)
    assert [e.path for e in edits(items)] == ["b.py", "b.py"]


def test_pathless_block_after_prose_reuses_the_last_path_like_aider() -> None:
    items = parse("a.py\n" + SR_BODY + "And also this change:\n" + SR_BODY)
    assert [e.path for e in edits(items)] == ["a.py", "a.py"]


def test_unclosed_fence_then_next_fenced_block() -> None:
    items = parse("a.py\n```python\n" + SR_BODY + "b.py\n```python\n" + SR_BODY + "```\nok\n")
    assert [e.path for e in edits(items)] == ["a.py", "b.py"]
    assert prose(items) == "ok\n"


def test_hunk_header_glued_to_its_anchor() -> None:
    (edit,) = edits(parse("*** Begin Patch\n*** Update File: a.py\n@@def f():\n-x\n+y\n"
                          "*** End Patch\n"))
    assert edit.hunks[0].anchors == ("def f():",)


def test_a_blank_line_after_a_released_path_candidate_stays_prose() -> None:
    items = parse("Note\n\nsrc/a.py\n" + SR_BODY)
    assert prose(items) == "Note\n\n" and [e.path for e in edits(items)] == ["src/a.py"]

"""The locate ladder, value in / value out: each step, anchors, search_from, refusals."""

from __future__ import annotations

import pytest

from spark_cli.edits.locate.ladder import Located, LocateFailed, locate
from spark_cli.edits.model.blocks import Hunk

SRC = "def f(x):\n    if x:\n        return 1  \n    return 2\n"


def apply(text: str, found: Located) -> str:
    return text[:found.start] + found.replacement + text[found.end:]


def test_exact() -> None:
    found = locate(SRC, Hunk("    return 2\n", "    return 4\n"))
    assert (found.step, found.line) == ("exact", 4)
    assert apply(SRC, found) == "def f(x):\n    if x:\n        return 1  \n    return 4\n"


def test_exact_without_trailing_newlines() -> None:
    found = locate(SRC, Hunk("def f(x):", "def f(y):"))
    assert found.step == "exact" and apply(SRC, found).startswith("def f(y):\n    if x:")


def test_trailing_whitespace_insensitive() -> None:
    found = locate(SRC, Hunk("    if x:\n        return 1\n", "    if x:\n        return 3\n"))
    assert (found.step, found.line) == ("trailing_ws", 2)
    assert apply(SRC, found) == "def f(x):\n    if x:\n        return 3\n    return 2\n"


def test_indent_offset_added_prefix_reindents_replacement() -> None:
    found = locate(SRC, Hunk("if x:\n    return 1\n", "if x:\n    return 3\n    # done\n"))
    assert found.step == "indent"
    assert apply(SRC, found) == ("def f(x):\n    if x:\n        return 3\n        # done\n"
                                 "    return 2\n")


def test_indent_offset_removed_prefix() -> None:
    text = "if a:\n  b()\n  c()\n"
    found = locate(text, Hunk("    if a:\n      b()\n", "    if a:\n      d()\n"))
    assert found.step == "indent" and apply(text, found) == "if a:\n  d()\n  c()\n"


def test_indent_offset_spaces_to_tabs() -> None:
    text = "func a() {\n\tif b {\n\t\tc()\n\t}\n}\n"
    hunk = Hunk("    if b {\n        c()\n    }\n",
                "    if b {\n        d()\n        e()\n    }\n")
    found = locate(text, hunk)
    assert found.step == "indent"
    assert apply(text, found) == "func a() {\n\tif b {\n\t\td()\n\t\te()\n\t}\n}\n"


def test_trimmed_reindents_relative_to_first_line() -> None:
    text = "class A:\n    def f(self):\n        x = 1\n        y = 2\n"
    # inconsistent indentation in the search: not an offset, but trimmed equal
    hunk = Hunk("    def f(self):\n      x = 1\n         y = 2\n",
                "    def f(self):\n        x = 10\n        y = 2\n")
    found = locate(text, hunk)
    assert found.step == "trimmed"
    assert apply(text, found) == "class A:\n    def f(self):\n        x = 10\n        y = 2\n"


def test_trimmed_with_different_first_indent() -> None:
    text = "        a = 1\n        b = 2\n"
    hunk = Hunk("a = 1\n  b = 2\n", "a = 1\n  b = 3\n  c = 4\n    d = 5\n")
    found = locate(text, hunk)
    assert found.step == "trimmed"
    # b = 3 sits where b = 2 is; c follows b; d is one level deeper than c (the model
    # indents by 2, the file by 4)
    assert apply(text, found) == "        a = 1\n        b = 3\n        c = 4\n            d = 5\n"


def test_trimmed_restores_unchanged_lines_exactly() -> None:
    text = "x = [\n    1,\n  2,\n]\n"
    found = locate(text, Hunk("x = [\n1,\n2,\n]\n", "x = [\n1,\n2,\n3,\n]\n"))
    assert found.step == "trimmed"
    assert apply(text, found) == "x = [\n    1,\n  2,\n  3,\n]\n"


def test_unicode_punctuation_and_spaces() -> None:
    text = "msg = “hello” — it’s done…\nx\u00a0=\u00a01\n"
    found = locate(text, Hunk("msg = \"hello\" - it's done...\n", "msg = 'bye'\n"))
    assert (found.step, found.line) == ("unicode", 1)
    assert apply(text, found) == "msg = 'bye'\nx\u00a0=\u00a01\n"
    found = locate(text, Hunk("x = 1\n", "x = 2\n"))
    assert found.step == "unicode" and apply(text, found).endswith("x = 2\n")


def test_unicode_full_width_forms() -> None:
    text = "ｘ ＝ （１）\n"
    found = locate(text, Hunk("x = (1)\n", "x = (2)\n"))
    assert found.step == "unicode" and apply(text, found) == "x = (2)\n"


def test_fragment_inside_a_line_when_unique() -> None:
    text = "total = price * qty + tax\n"
    found = locate(text, Hunk("price * qty", "price * quantity"))
    assert found.step == "fragment"
    assert apply(text, found) == "total = price * quantity + tax\n"


def test_fragment_that_repeats_is_ambiguous() -> None:
    with pytest.raises(LocateFailed) as err:
        locate("a = b + b\n", Hunk("b", "c"))
    assert err.value.reason == "ambiguous"


def test_the_strictest_step_wins() -> None:
    text = "x = 1\n    x = 1\n"
    found = locate(text, Hunk("    x = 1\n", "    x = 2\n"))
    assert (found.step, found.line) == ("exact", 2)


def test_blank_edge_lines_of_the_search_do_not_break_a_match() -> None:
    found = locate(SRC, Hunk("\n\n    return 2\n\n", "\n\n    return 4\n\n"))
    assert apply(SRC, found) == "def f(x):\n    if x:\n        return 1  \n    return 4\n"


def test_deleting_lines_removes_their_newlines() -> None:
    found = locate(SRC, Hunk("    if x:\n        return 1  \n", ""))
    assert apply(SRC, found) == "def f(x):\n    return 2\n"


def test_deleting_the_last_line_without_final_newline() -> None:
    text = "a\nb"
    found = locate(text, Hunk("b\n", ""))
    assert apply(text, found) == "a"


def test_replacement_with_an_empty_line_keeps_one_line() -> None:
    found = locate("a\nb\nc\n", Hunk("b\n", "\n"))
    assert apply("a\nb\nc\n", found) == "a\n\nc\n"


def test_ambiguous_lists_candidate_lines() -> None:
    with pytest.raises(LocateFailed) as err:
        locate("x\ny\nx\ny\n", Hunk("x\n", "z\n"))
    assert err.value.reason == "ambiguous"
    assert err.value.candidates == (1, 3)
    assert "matches 2 places (lines 1, 3)" in err.value.message
    assert "add more unchanged lines" in err.value.message


def test_search_from_resolves_repeats_in_order() -> None:
    text = "x\ny\nx\ny\n"
    found = locate(text, Hunk("x\n", "z\n"), search_from=3)
    assert found.line == 3 and apply(text, found) == "x\ny\nz\ny\n"


def test_search_from_past_all_matches_is_still_ambiguous() -> None:
    with pytest.raises(LocateFailed):
        locate("x\nx\ny\n", Hunk("x\n", "z\n"), search_from=4)


def test_unique_match_before_search_from_is_taken() -> None:
    found = locate("a\nb\nc\n", Hunk("a\n", "A\n"), search_from=4)
    assert found.line == 1


def test_at_eof_prefers_the_match_at_the_end() -> None:
    text = "x\ny\nx\n\n"
    found = locate(text, Hunk("x\n", "z\n", at_eof=True))
    assert found.line == 3 and apply(text, found) == "x\ny\nz\n\n"


def test_empty_search_appends() -> None:
    found = locate("a\n", Hunk("", "b\n"))
    assert found.step == "append" and apply("a\n", found) == "a\nb\n"
    found = locate("a", Hunk("", "b\n"))
    assert apply("a", found) == "a\nb"


PY = ("class A:\n    def run(self):\n        return 1\n\n"
      "class B:\n    def run(self):\n        return 1\n")


def test_anchors_choose_between_repeats() -> None:
    found = locate(PY, Hunk("        return 1\n", "        return 2\n", anchors=("class B",)),
                   language="python")
    assert (found.step, found.line) == ("anchor:exact", 7)
    assert apply(PY, found).endswith("class B:\n    def run(self):\n        return 2\n")


def test_nested_anchors() -> None:
    hunk = Hunk("        return 1\n", "        return 2\n", anchors=("class A", "def run(self):"))
    found = locate(PY, hunk, language="python")
    assert found.line == 3


def test_anchor_without_language_uses_lines() -> None:
    found = locate(PY, Hunk("        return 1\n", "        return 2\n", anchors=("class B:",)))
    assert found.line == 7


def test_anchor_that_does_not_narrow_keeps_refusing() -> None:
    hunk = Hunk("        return 1\n", "        return 2\n", anchors=("def run",))
    with pytest.raises(LocateFailed) as err:
        locate(PY, hunk, language="python")
    assert err.value.reason == "ambiguous" and err.value.candidates == (3, 7)
    assert "inside 'def run'" in err.value.message


def test_unique_match_outside_the_anchor_is_still_taken() -> None:
    found = locate(PY, Hunk("class B:\n", "class C:\n", anchors=("class A",)), language="python")
    assert found.line == 5 and found.step == "exact"


def test_empty_search_with_anchor_inserts_after_the_header() -> None:
    hunk = Hunk("", "    def new(self):\n        pass\n", anchors=("class B",))
    found = locate(PY, hunk, language="python")
    assert found.step == "anchor:insert"
    assert apply(PY, found).endswith(
        "class B:\n    def new(self):\n        pass\n    def run(self):\n        return 1\n")


def test_empty_search_with_an_ambiguous_anchor_is_refused() -> None:
    with pytest.raises(LocateFailed) as err:
        locate(PY, Hunk("", "x\n", anchors=("def run",)), language="python")
    assert err.value.reason == "ambiguous" and err.value.candidates == (2, 6)


def test_missing_reports_where_a_partial_match_diverges() -> None:
    with pytest.raises(LocateFailed) as err:
        locate(SRC, Hunk("    if x:\n        return 5\n", "x\n"))
    failure = err.value
    assert failure.reason == "missing"
    assert "1 of its 2 non-blank lines match at line 2" in failure.message
    assert "'return 5' differs from file line 3 'return 1'" in failure.message


def test_missing_suggests_nearest_lines() -> None:
    text = "def compute_total(items):\n    return sum(items)\n"
    with pytest.raises(LocateFailed) as err:
        locate(text, Hunk("def compute_totals(items, tax):\n", "x\n"))
    assert err.value.reason == "missing"
    assert "Did you mean line 1: 'def compute_total(items):'" in err.value.message


def test_missing_with_nothing_similar() -> None:
    with pytest.raises(LocateFailed) as err:
        locate("a\nb\n", Hunk("zzzzzzzzzzzz qqqqqq\n", "x\n"))
    assert "no line of the file resembles it" in err.value.message


def test_missing_mentions_an_anchor_that_matched_nothing() -> None:
    with pytest.raises(LocateFailed) as err:
        locate(PY, Hunk("nope\n", "x\n", anchors=("class Z",)), language="python")
    assert "The anchor 'class Z' matched no definition" in err.value.message


def test_never_matches_by_edit_distance() -> None:
    with pytest.raises(LocateFailed):
        locate(SRC, Hunk("    return 3\n", "    return 4\n"))


def test_multibyte_offsets_are_characters() -> None:
    text = "s = '日本語'\nt = 'ü'\nu = 1\n"
    found = locate(text, Hunk("u = 1\n", "u = 2\n"))
    assert text[found.start:found.end] == "u = 1" and found.line == 3
    found = locate(text, Hunk("t = 'ü'  \n", "t = 'ö'\n"))
    assert apply(text, found) == "s = '日本語'\nt = 'ö'\nu = 1\n"


def test_search_of_only_blank_lines_appends_nothing_odd() -> None:
    found = locate("a\n", Hunk("\n\n", "b\n"))
    assert found.step == "append"


def test_works_on_an_empty_file() -> None:
    with pytest.raises(LocateFailed):
        locate("", Hunk("a\n", "b\n"))
    assert apply("", locate("", Hunk("", "b\n"))) == "b\n"


def test_missing_points_out_an_elision() -> None:
    text = "def f():\n    a = 1\n    b = 2\n    return a + b\n"
    with pytest.raises(LocateFailed) as err:
        locate(text, Hunk("def f():\n    # ... existing code ...\n    return a + b\n", "x\n"))
    assert "looks like an elision" in err.value.message


def test_crlf_in_the_hunk_is_normalised() -> None:
    text = "a\nb\nc\n"
    found = locate(text, Hunk("b\r\nc\r\n", "B\r\nC\r\n"))
    assert found.step == "exact" and apply(text, found) == "a\nB\nC\n"


def test_many_fragment_repeats_report_line_numbers_in_order() -> None:
    text = "".join(f"v{i} = q + q\n" for i in range(300))
    with pytest.raises(LocateFailed) as err:
        locate(text, Hunk("q + q", "r"))
    assert err.value.candidates[:3] == (1, 2, 3) and len(err.value.candidates) == 300
    assert "(lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …)" in err.value.message


def test_missing_finds_the_differing_line_even_when_it_is_the_first() -> None:
    text = "def f(a):\n    x = a\n    y = x * 2\n    return y\n"
    with pytest.raises(LocateFailed) as err:
        locate(text, Hunk("def f(a, b):\n    x = a\n    y = x * 2\n    return y\n", "z\n"))
    assert "3 of its 4 non-blank lines match at line 1" in err.value.message
    assert "search line 1 'def f(a, b):' differs from file line 1 'def f(a):'" in err.value.message


def test_missing_says_when_the_edit_is_already_applied() -> None:
    text = "def f(a):\n    return a + 1\n"
    hunk = Hunk("def f(a):\n    return a\n", "def f(a):\n    return a + 1\n")
    with pytest.raises(LocateFailed) as err:
        locate(text, hunk)
    assert "already in the file at line 1" in err.value.message


def test_blank_lines_inside_the_search_may_differ() -> None:
    text = "def a():\n    x = 1\n\n    y = 2\n    return x + y\n"
    found = locate(text, Hunk("    x = 1\n    y = 2\n", "    x = 1\n    y = 3\n"))
    assert (found.step, found.line) == ("blank_lines", 2)
    # y changed in place: the blank line the model did not see stays
    assert apply(text, found) == "def a():\n    x = 1\n\n    y = 3\n    return x + y\n"
    found = locate(text, Hunk("    y = 2\n\n    return x + y\n", "    return 0\n"))
    assert found.step == "blank_lines"
    assert apply(text, found) == "def a():\n    x = 1\n\n    return 0\n"


ELIDED_FILE = ("def f(a):\n    x = a + 1\n    y = x * 2\n    z = y - 3\n    return z\n\n"
               "def g():\n    return 0\n")


def test_matching_elisions_keep_the_elided_lines() -> None:
    hunk = Hunk("def f(a):\n    # ...\n    return z\n",
                "def f(a, b=0):\n    # ...\n    return z + b\n")
    found = locate(ELIDED_FILE, hunk)
    assert (found.step, found.line) == ("elision", 1)
    assert apply(ELIDED_FILE, found) == ELIDED_FILE.replace("def f(a):", "def f(a, b=0):") \
        .replace("    return z\n", "    return z + b\n")


def test_elision_only_in_search_is_refused_with_a_note() -> None:
    hunk = Hunk("def f(a):\n    ...\n    return z\n", "def f(a):\n    return 0\n")
    with pytest.raises(LocateFailed) as err:
        locate(ELIDED_FILE, hunk)
    assert err.value.reason == "missing" and "looks like an elision" in err.value.message


def test_elided_pieces_must_be_in_order() -> None:
    hunk = Hunk("    return z\n    # ...\ndef f(a):\n", "    return 1\n    # ...\ndef f(a):\n")
    with pytest.raises(LocateFailed):
        locate(ELIDED_FILE, hunk)


def test_a_real_ellipsis_line_is_matched_as_text_first() -> None:
    text = "class P:\n    ...\n"
    found = locate(text, Hunk("class P:\n    ...\n", "class P:\n    x = 1\n"))
    assert found.step == "exact" and apply(text, found) == "class P:\n    x = 1\n"


def test_fragment_never_cuts_a_word() -> None:
    with pytest.raises(LocateFailed):
        locate("total = subtotal + 1\n", Hunk("total + 1", "total + 2"))


def test_fragment_that_starts_a_longer_line_is_refused() -> None:
    text = "def f(x):\n    return x + 1\n"
    with pytest.raises(LocateFailed) as err:
        locate(text, Hunk("return x", "return y"))
    assert err.value.reason == "missing"
    assert "Did you mean line 2: 'return x + 1'?" in err.value.message


def test_fragment_at_the_end_of_a_line_is_fine() -> None:
    text = "connect(host, timeout=30)\n"
    found = locate(text, Hunk("timeout=30)", "timeout=60)"))
    assert found.step == "fragment" and apply(text, found) == "connect(host, timeout=60)\n"


def test_blank_lines_step_keeps_the_file_blank_lines_between_unchanged_lines() -> None:
    text = "a = 1\n\nb = 2\n\n\nc = 3\n"
    found = locate(text, Hunk("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\nd = 4\n"))
    assert found.step == "blank_lines"
    # b changed in place, with as many blank lines around it as the search had (none):
    # the file's blank lines stay; d is new
    assert apply(text, found) == "a = 1\n\nb = 20\n\n\nc = 3\nd = 4\n"
    found = locate(text, Hunk("a = 1\nb = 2\nc = 3\n", "a = 1\nb = 2\nc = 30\n"))
    assert apply(text, found) == "a = 1\n\nb = 2\n\n\nc = 30\n"
    # where the replacement has other blank lines than its search, they are the model's
    found = locate(text, Hunk("a = 1\nb = 2\nc = 3\n", "a = 1\n\n\n\nb = 2\nc = 3\n"))
    assert apply(text, found) == "a = 1\n\n\n\nb = 2\n\n\nc = 3\n"


def test_blank_lines_step_keeps_two_blank_lines_the_model_wrote_as_one() -> None:
    text = "import os\n\n\ndef f():\n    return 1\n"
    found = locate(text, Hunk("import os\n\ndef f():\n    return 1\n",
                              "import os\n\ndef f():\n    return 2\n"))
    assert found.step == "blank_lines"
    assert apply(text, found) == "import os\n\n\ndef f():\n    return 2\n"


def test_blank_lines_step_with_blank_edges_adds_no_blank_lines() -> None:
    text = "a = 1\n\nb = 2\n\n\nc = 3\n"
    found = locate(text, Hunk("a = 1\nb = 2\n\n", "a = 1\nb = 20\n\n"))
    assert apply(text, found) == "a = 1\n\nb = 20\n\n\nc = 3\n"


def test_search_and_replace_each_in_a_fence_of_their_own() -> None:
    text = "def f():\n    return 1\n"
    found = locate(text, Hunk("```python\n    return 1\n```\n", "```python\n    return 2\n```\n"))
    assert apply(text, found) == "def f():\n    return 2\n"


def test_fence_lines_the_file_really_has_are_kept() -> None:
    text = "# X\n\n```bash\npip install x\n```\n"
    found = locate(text, Hunk("```bash\npip install x\n```\n", "```sh\npip install y\n```\n"))
    assert apply(text, found) == "# X\n\n```sh\npip install y\n```\n"

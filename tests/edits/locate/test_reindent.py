"""Adapting a replacement after a loose match: kept lines are the file's, re-nesting is applied."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.locate.ladder import locate
from spark_cli.edits.locate.normalize import dominant_unit
from spark_cli.edits.locate.reindent import reconcile
from spark_cli.edits.model.blocks import Hunk


def _apply(text: str, hunk: Hunk) -> tuple[str, str]:
    found = locate(text, hunk)
    return text[:found.start] + found.replacement + text[found.end:], found.step


def test_kept_lines_keep_the_files_trailing_spaces() -> None:
    assert reconcile(["def f():", "    a = 1", "    b = 2"],
                     ["def f():  ", "    a = 1   ", "    b = 2"],
                     ["def f():", "    a = 1", "    b = 3"]) == [
        "def f():  ", "    a = 1   ", "    b = 3"]


def test_models_trailing_spaces_on_a_kept_line_are_not_written() -> None:
    assert reconcile(["x = 1", "y = 2"], ["x = 1", "y = 2"],
                     ["x = 1   ", "y = 3"]) == ["x = 1", "y = 3"]


def test_unicode_of_an_unchanged_line_is_kept() -> None:
    text = 'def msg():\n    title = "Spark — the CLI"\n    return title\n'
    new, step = _apply(text, Hunk('    title = "Spark - the CLI"\n    return title\n',
                                  '    title = "Spark - the CLI"\n    return title.upper()\n'))
    assert step == "unicode"
    assert new == 'def msg():\n    title = "Spark — the CLI"\n    return title.upper()\n'


def test_yaml_key_moved_under_a_new_key() -> None:
    text = 'services:\n  web:\n    image: nginx\n    ports:\n      - "80:80"\n'
    new, step = _apply(text, Hunk(
        'web:\n    image: nginx\n    ports:\n      - "80:80"\n',
        'web:\n    image: nginx\n    network:\n      ports:\n        - "80:80"\n'))
    assert step == "trimmed"
    assert new == ('services:\n  web:\n    image: nginx\n    network:\n      ports:\n'
                   '        - "80:80"\n')


def test_js_block_wrapped_in_try_with_a_miscopied_line() -> None:
    text = "function f(a) {\n  if (a) {\n    doA();\n  }\n  doB();\n}\n"
    new, step = _apply(text, Hunk(
        "function f(a) {\n    if (a) {\n    doA();\n  }\n  doB();\n}\n",
        "function f(a) {\n  try {\n    if (a) {\n      doA();\n    }\n    doB();\n"
        "  } catch (e) {\n    log(e);\n  }\n}\n"))
    assert step == "trimmed"
    assert new == ("function f(a) {\n  try {\n    if (a) {\n      doA();\n    }\n    doB();\n"
                   "  } catch (e) {\n    log(e);\n  }\n}\n")


def test_python_wrap_in_with_when_the_first_line_lost_its_indentation() -> None:
    text = "class A:\n    def f(self):\n        x = 1\n        return x\n"
    new, _step = _apply(text, Hunk(
        "def f(self):\n        x = 1\n        return x\n",
        "def f(self):\n        with lock:\n            x = 1\n            return x\n"))
    assert new == ("class A:\n    def f(self):\n        with lock:\n            x = 1\n"
                   "            return x\n")


def test_tabs_file_spaces_model_wrap_and_unwrap() -> None:
    text = "def f():\n\tif x:\n\t\treturn 1\n\treturn 2\n"
    new, step = _apply(text, Hunk("def f():\n    if x:\n        return 1\n    return 2\n",
                                  "def f():\n    try:\n        if x:\n            return 1\n"
                                  "        return 2\n    except E:\n        return 3\n"))
    assert step == "indent"
    assert new == ("def f():\n\ttry:\n\t\tif x:\n\t\t\treturn 1\n\t\treturn 2\n"
                   "\texcept E:\n\t\treturn 3\n")
    back, _ = _apply(new, Hunk("    try:\n        if x:\n            return 1\n        return 2\n"
                               "    except E:\n        return 3\n",
                               "    if x:\n        return 1\n    return 2\n"))
    assert back == text


def test_two_space_model_four_space_file() -> None:
    text = "class A:\n    def f(self):\n        return 1\n"
    new, _ = _apply(text, Hunk("  def f(self):\n    return 1\n",
                               "  def f(self):\n    if ok:\n      return 1\n    return 0\n"))
    assert new == ("class A:\n    def f(self):\n        if ok:\n            return 1\n"
                   "        return 0\n")


def test_a_miscopied_line_the_model_does_not_touch_stays_as_it_is() -> None:
    assert reconcile(["  a", "  b", "  c"], ["  a", "    b", "  c"], ["  a", "  b", "  d"]) == [
        "  a", "    b", "  d"]


def test_changed_line_sits_where_the_line_it_replaces_is() -> None:
    assert reconcile(["a = 1", "  b = 2"], ["        a = 1", "        b = 2"],
                     ["a = 1", "  b = 3", "  c = 4"]) == [
        "        a = 1", "        b = 3", "        c = 4"]


_word = st.sampled_from(["x = 1", "call()", "if y:", "}", "return z", "# note", "ü — “q”"])
_indent = st.sampled_from(["", "  ", "    ", "\t", "        "])
_file_line = st.tuples(_indent, _word, st.sampled_from(["", " ", "  "]))


@settings(max_examples=200, deadline=None)
@given(st.lists(_file_line, min_size=1, max_size=12), st.data())
def test_only_the_changed_lines_change(rows: list[tuple[str, str, str]],
                                       data: st.DataObject) -> None:
    """Whatever the model's copy of the lines looks like (indentation, trailing
    spaces, Unicode), a line it repeats unchanged comes back exactly as the file has it."""
    found = [i + w + t for i, w, t in rows]
    shift = data.draw(st.sampled_from(["", "  ", "    ", "same", "tabs"]))
    search = [(i if shift == "same" else i.replace("\t", "    ") if shift == "tabs" else shift)
              + w.replace("—", "-").replace("“", '"').replace("”", '"')
              for i, w, _t in rows]
    if data.draw(st.booleans()):
        search[0] = search[0].lstrip()  # the first line's indentation dropped
    changed = data.draw(st.sets(st.integers(0, len(rows) - 1)))
    replace = [line + " # changed" if k in changed else line for k, line in enumerate(search)]
    out = reconcile(search, found, replace)
    assert len(out) == len(replace)
    for k in range(len(rows)):
        if k not in changed:
            assert out[k] == found[k]
        else:
            assert out[k].endswith(" # changed")


def test_dominant_unit_ignores_alignment() -> None:
    python = ["", "    ", "        ", "                   ", "                   ", "        ",
              "    ", "        "]
    assert dominant_unit(python) == "    "
    assert dominant_unit(["", "  ", "    ", "  ", "      "]) == "  "
    assert dominant_unit(["\t", "\t\t", "    "]) == "\t"
    assert dominant_unit(["", ""]) == ""


def test_one_level_of_a_two_space_model_in_a_four_space_file() -> None:
    text = "class A:\n    def f(self):\n        a = 1\n        b = 2\n        return a + b\n"
    new, _ = _apply(text, Hunk("    a = 1\n    b = 2\n",
                               "    with lock:\n      a = 1\n      b = 2\n"))
    assert new == ("class A:\n    def f(self):\n        with lock:\n            a = 1\n"
                   "            b = 2\n        return a + b\n")


def test_a_nested_continuation_line_keeps_its_alignment() -> None:
    text = ("def f():\n    total = compute(first,\n                    second)\n"
            "    return total\n")
    new, _ = _apply(text, Hunk("total = compute(first,\n                second)\nreturn total\n",
                               "with lock:\n    total = compute(first,\n"
                               "                    second)\nreturn total\n"))
    assert new == ("def f():\n    with lock:\n        total = compute(first,\n"
                   "                        second)\n    return total\n")


def test_exact_match_writes_the_models_spaces_even_where_the_context_has_tabs() -> None:
    # the context matched byte for byte: the added lines are the model's bytes
    text = "func area(w, h int) int {\n\treturn w * h\n}\n"
    hunk = Hunk("func area(w, h int) int {\n\treturn w * h\n",
                "func area(w, h int) int {\n    if w < 0 {\n        return 0\n    }\n"
                "\treturn w * h\n")
    new, step = _apply(text, hunk)
    assert step == "exact"
    assert new == ("func area(w, h int) int {\n    if w < 0 {\n        return 0\n    }\n"
                   "\treturn w * h\n}\n")


def test_exact_match_in_a_file_of_spaces_keeps_the_models_tabs() -> None:
    text = "run:\n    cat <<-EOF\n    EOF\n"  # a tab the model writes may be meant
    new, _step = _apply(text, Hunk("    cat <<-EOF\n", "    cat <<-EOF\n\thello\n"))
    assert new == "run:\n    cat <<-EOF\n\thello\n    EOF\n"


def test_exact_match_of_unindented_lines_leaves_the_replacement_alone() -> None:
    new, _step = _apply("a:\nb: 1\n", Hunk("a:\n", "a:\n  x: 2\n"))
    assert new == "a:\n  x: 2\nb: 1\n"


def test_a_tab_added_to_a_continuation_line_goes_before_its_alignment_spaces() -> None:
    text = "\tx = f(a,\n\t      b)\n"
    hunk = Hunk("x = f(a,\n      b)\n", "if ok:\n    x = f(a,\n          b)\n")
    new, _step = _apply(text, hunk)
    assert new == "\tif ok:\n\t\tx = f(a,\n\t\t      b)\n"


def test_a_first_line_without_its_indentation_does_not_skew_the_models_unit() -> None:
    text = "\tdef add(self):\n\t\tself.body.append(x)\n\t\treturn None\n\n\tdef g(self):\n"
    hunk = Hunk("self.body.append(x)\n        return None\n\n    def g(self):\n",
                "self.body.append(x)\n        done()\n        return None\n\n    def g(self):\n")
    new, _step = _apply(text, hunk)
    assert new == ("\tdef add(self):\n\t\tself.body.append(x)\n\t\tdone()\n\t\treturn None\n\n"
                   "\tdef g(self):\n")


def test_exact_match_in_a_file_of_tabs_keeps_the_models_spaces() -> None:
    # the file's majority (tabs) is not a reason to rewrite what the model wrote
    text = "package m\n\nfunc a() {\n\treturn\n}\n"
    new, step = _apply(text, Hunk("}\n", "}\n\nfunc b() int {\n    return 1\n}\n"))
    assert step == "exact"
    assert new == "package m\n\nfunc a() {\n\treturn\n}\n\nfunc b() int {\n    return 1\n}\n"

"""The windowed first look (`syntax_window`) never calls an edit clean that a full parse
of the new file finds broken, and the tree it defers is the full parse's tree."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_cli.edits.lang import syntax
from spark_cli.edits.lang.grammars import get_parser
from spark_cli.edits.lang.syntax import check_edit, first_error, parse_text
from spark_cli.edits.lang.syntax_window import window_clean

PY = "".join(f"@trace\ndef f{k}(x):\n    '''Doc {k}.'''\n    y = [x,\n         {k}]\n"
             f"    return y  # done\n\n\nclass C{k}:\n    z = {{'a': {k}}}\n\n\n"
             for k in range(300))
JS = "".join(f"// item {k}\nexport function f{k}(x) {{\n  const y = `v${{x}}`;\n"
             f"  return [y, {k}];\n}}\nconst g{k} = (a) => a + {k}\n\n" for k in range(400))
C = "#include <stdio.h>\n" + "".join(
    f"/* f{k} */\nstatic int f{k}(int x)\n{{\n#ifdef DEBUG\n    printf(\"%d\", x);\n#endif\n"
    f"    return x + {k};\n}}\n\n" for k in range(400))
FILES = {"m.py": ("python", PY), "m.js": ("javascript", JS), "m.c": ("c", C)}
SNIPPETS = ["", "\n", "    ", "(", ")", "[", "]", "{", "}", "'", '"', "'''", "`", "/*", "*/",
            "#endif\n", "#ifdef X\n", "def h():\n", "    return 1\n", "x = 1\n", "  y\n",
            "else:\n", "@dec\n", "if (a)\n", "\\\n", "class D:\n", ";", ",", "=>", "//",
            "return\n", "pass\n", "}\n\n", "function", "async ", "):\n", "\t"]


@st.composite
def edits(draw: st.DrawFn) -> tuple[str, str, str]:
    path = draw(st.sampled_from(sorted(FILES)))
    text = FILES[path][1]
    start = draw(st.integers(0, len(text) - 1))
    length = draw(st.integers(0, 80))
    pieces = draw(st.lists(st.sampled_from(SNIPPETS), max_size=4))
    return path, text, text[:start] + "".join(pieces) + text[start + length:]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edits())
def test_a_windowed_verdict_agrees_with_a_full_parse(case: tuple[str, str, str]) -> None:
    path, old, new = case
    language = FILES[path][0]
    verdict, _tree = check_edit(path, old, new)
    full = get_parser(language).parse(new.encode())
    assert verdict.ok == (first_error(full, language) is None)


def test_a_comment_is_no_edge_of_the_window() -> None:
    """Found by the test above: a comment ends no statement, so the window reaches the
    item before it (``a + 8`` then ``(a) => a + 9`` is one broken expression)."""
    start = JS.index("export function f9(")
    end = JS.index("const g9 =") + len("const g9 =")
    verdict, _tree = check_edit("m.js", JS, JS[:start] + JS[end:])
    assert not verdict.ok


def test_the_window_is_used_and_its_deferred_tree_is_the_full_parse() -> None:
    syntax._trees.clear()
    old = PY
    at = old.index("return y", len(old) // 2)
    new = old[:at] + "return y + 1" + old[at + len("return y"):]
    old_tree = parse_text("python", old)
    edit = (len(old[:at].encode()), len(old[:at].encode()) + 8, len(old[:at].encode()) + 12)
    assert window_clean("python", old_tree, old.encode(), new.encode(), edit) is True
    verdict, tree = check_edit("m.py", old, new)
    assert verdict.ok and tree is None  # judged by the window: the tree is built on demand
    built = parse_text("python", new)
    assert str(built.root_node) == str(get_parser("python").parse(new.encode()).root_node)


def test_a_broken_window_is_judged_by_the_full_parse() -> None:
    old = JS
    at = old.index("return [y", len(old) // 2)
    new = old[:at] + "return [y" + old[at + len("return [y, "):]  # drops ", ": still fine?
    broken = old[:at] + "return (y" + old[at + len("return [y"):]
    assert check_edit("m.js", old, new)[0].ok == (
        first_error(get_parser("javascript").parse(new.encode())) is None)
    verdict, tree = check_edit("m.js", old, broken)
    assert not verdict.ok and tree is not None and verdict.error_line is not None


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(FILES)), st.lists(st.tuples(
    st.floats(0, 1), st.integers(0, 60), st.lists(st.sampled_from(SNIPPETS), max_size=3)),
    min_size=2, max_size=12))
def test_a_chain_of_edits_judged_without_a_tree_agrees_with_full_parses(path, steps) -> None:
    """Each edit is checked against the text the previous accepted one left (a session
    applying hunk after hunk): the old tree is then a pending chain, never parsed."""
    language, text = FILES[path]
    syntax._trees.clear()
    syntax._deferred.clear()
    for where, length, pieces in steps:
        start = int(where * (len(text) - 1))
        new = text[:start] + "".join(pieces) + text[start + length:]
        verdict, _tree = check_edit(path, text, new)
        full = get_parser(language).parse(new.encode())
        assert verdict.ok == (first_error(full, language) is None)
        if verdict.ok:
            text = new
    built = parse_text(language, text)  # a pending chain builds the full parse's tree
    assert str(built.root_node) == str(get_parser(language).parse(text.encode()).root_node)

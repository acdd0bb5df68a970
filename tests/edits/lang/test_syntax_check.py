"""Syntax verdicts: clean → broken is refused, broken → broken is not judged, text mode."""

from __future__ import annotations

import pytest

from spark_cli.edits.lang import syntax
from spark_cli.edits.lang.syntax import check_edit, first_error, parse_text

CLEAN_AND_BROKEN = [
    ("a.py", "def f(x):\n    return x\n", "def f(x):\n    return (x\n"),
    ("a.js", "function f() { return 1; }\n", "function f() { return 1;\n"),
    ("a.ts", "let x: number = 1;\n", "let x: number = ;\n"),
    ("a.tsx", "const A = () => <div>hi</div>;\n", "const A = () => <div>hi</div;\n"),
    ("a.go", "package a\n\nfunc f() {}\n", "package a\n\nfunc f() {\n"),
    ("a.rs", "fn main() {}\n", "fn main() { let x = ; }\n"),
    ("A.java", "class A { void f() {} }\n", "class A { void f() { }\n"),
    ("a.c", "int main(void) { return 0; }\n", "int main(void) { return 0 }\n"),
    ("a.cpp", "int main() { return 0; }\n", "int main() { return 0;\n"),
    ("a.rb", "def f\n  1\nend\n", "def f\n  (1\nend\n"),
    ("a.sh", "if true; then echo hi; fi\n", "if true; then echo hi;\n"),
    ("a.json", '{"a": 1}\n', '{"a": }\n'),
    ("a.toml", "a = 1\n", "a = \n"),
    ("a.css", "a { color: red; }\n", "a { color: red;\n"),
]


@pytest.mark.parametrize(("path", "clean", "broken"), CLEAN_AND_BROKEN)
def test_clean_to_broken_is_refused(path: str, clean: str, broken: str) -> None:
    verdict, tree = check_edit(path, clean, broken)
    assert verdict.checked and not verdict.ok, verdict
    assert verdict.language is not None and tree is not None
    assert verdict.error_line is not None and verdict.error_line >= 1
    assert verdict.message.startswith(f"{path}: the edit would introduce a syntax error at line")


@pytest.mark.parametrize(("path", "clean", "broken"), CLEAN_AND_BROKEN)
def test_broken_to_broken_is_allowed_with_a_note(path: str, clean: str, broken: str) -> None:
    verdict, _tree = check_edit(path, broken, broken + "\n")
    assert verdict.ok and verdict.checked
    assert "already had a syntax error" in verdict.message


def test_clean_to_clean_is_ok() -> None:
    verdict, tree = check_edit("m.py", "x = 1\n", "x = 2\n")
    assert verdict == syntax.SyntaxVerdict("python", True, True, "", None)
    assert tree is not None and not tree.root_node.has_error


def test_text_mode_says_nothing_was_checked() -> None:
    verdict, tree = check_edit("notes.txt", "a", "((((")
    assert tree is None
    assert verdict.language is None and verdict.ok and not verdict.checked
    assert "no syntax check was done" in verdict.message


@pytest.mark.parametrize(("new", "line", "hint"), [
    ("def f(x):\n    return (x,\n\ndef g():\n    pass\n", 2, "'(' opened here is never closed"),
    ("def f(x):\n    return x)\n", 2, "unmatched ')'"),
    ("x = 1\ny = = 2\n", 2, "unexpected '='"),
    ("def f(:\n  pass\n", 1, "missing ')'"),
])
def test_error_line_and_hint(new: str, line: int, hint: str) -> None:
    verdict, _ = check_edit("h.py", "x = 1\n", new)
    assert verdict.error_line == line
    assert f"line {line} ({hint})" in verdict.message


def test_error_line_counts_lines_not_bytes_with_multibyte_text() -> None:
    old = "s = 'héllo wörld ✓'\nt = '日本語'\n"
    new = old + "u = ('ü'\n"
    verdict, _ = check_edit("u.py", old, new)
    assert not verdict.ok and verdict.error_line == 3


def _full(path: str, old: str, new: str) -> syntax.SyntaxVerdict:
    syntax._trees.clear()
    return check_edit(path, old, new)[0]


@pytest.mark.parametrize(("old", "new"), [
    ("a = 1\nb = 2\n", "a = 1\nb = (2\n"),
    ("a = 'é'\nb = 2\n", "a = 'éé'\nb = 2\n"),
    ("x = '日本'\ndef f():\n    return 1\n", "x = '日本'\ndef f():\n    return [1\n"),
    ("def f():\n    pass\n", "def f():\n    pass\n\ndef g():\n    pass\n"),
    ("a = 1\nb = 2\nc = 3\n", "a = 1\nc = 3\n"),
])
def test_incremental_reparse_matches_a_full_parse(old: str, new: str) -> None:
    full = _full("i.py", old, new)
    syntax._trees.clear()
    old_tree = parse_text("python", old)
    incremental, tree = check_edit("i.py", old, new)
    assert incremental == full
    assert tree is not None
    fresh = syntax.get_parser("python").parse(new.encode())
    assert str(tree.root_node) == str(fresh.root_node)
    assert not old_tree.root_node.has_changes  # the cached old tree was not edited


def test_an_edit_after_a_multibyte_prefix() -> None:
    old = "s = 'ü'\nx = 1\ny = 2\n"
    new = "s = 'ü'\nx = 10\ny = 2\n"
    syntax._trees.clear()
    parse_text("python", old)
    verdict, tree = check_edit("b.py", old, new)
    assert verdict.ok and tree is not None
    fresh = syntax.get_parser("python").parse(new.encode())
    assert str(tree.root_node) == str(fresh.root_node)


def test_two_changed_lines_reparse_as_one_span() -> None:
    old = "a = 1\nb = 2\nc = 3\n"
    new = "a = 11\nb = 2\nc = 33\n"
    syntax._trees.clear()
    parse_text("python", old)
    verdict, tree = check_edit("m.py", old, new)
    assert verdict.ok and tree is not None
    assert str(tree.root_node) == str(syntax.get_parser("python").parse(new.encode()).root_node)


def test_changed_span_is_minimal() -> None:
    old, new = b"abc\nxyz\n" * 3000, b"abc\nxyz\n" * 1500 + b"Q" + b"abc\nxyz\n" * 1500
    start, old_end, new_end = syntax._changed_span(old, new)
    assert (start, old_end, new_end) == (12000, 12000, 12001)
    assert syntax._changed_span(b"same", b"same") == (4, 4, 4)
    assert syntax._changed_span(b"aXa", b"aa") == (1, 2, 1)


def test_first_error_is_none_on_a_clean_tree() -> None:
    assert first_error(parse_text("python", "x = 1\n")) is None


def test_the_tree_cache_is_bounded() -> None:
    for i in range(50):
        parse_text("python", f"x = {i}\n")
    assert len(syntax._trees) <= 8


def test_prime_caches_the_tree_for_the_first_check() -> None:
    syntax._trees.clear()
    text = "def f():\n    return 1\n"
    syntax.prime("p.py", text)
    assert ("python", text) in syntax._trees
    syntax.prime("notes.txt", "whatever")  # text mode: nothing to do
    assert len(syntax._trees) == 1


def test_a_missing_grammar_wheel_means_no_check(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> None:
        raise ImportError(f"the {name} grammar is not installed (pip install tree-sitter-x)")

    syntax._trees.clear()
    monkeypatch.setattr(syntax, "get_parser", missing)
    verdict, tree = check_edit("m.py", "x = 1\n", "x = (\n")
    assert tree is None and not verdict.checked and verdict.ok
    assert "grammar is not installed" in verdict.message


def test_message_quotes_the_offending_line() -> None:
    verdict, _ = check_edit("q.py", "x = 1\n", "x = 1\ndef f(x):\n    return (x,\n")
    assert verdict.message == ("q.py: the edit would introduce a syntax error at line 3 "
                               "('(' opened here is never closed): 'return (x,'")


def test_a_c_header_may_become_cpp() -> None:
    old = "int add(int a, int b);\n"
    new = old + "template <typename T> T id(T x) { return x; }\n"
    verdict, _ = check_edit("box.h", old, new)
    assert verdict.ok and verdict.checked and verdict.language == "cpp"
    broken, _ = check_edit("box.h", old, old + "int f( {\n")
    assert not broken.ok and broken.language == "c"


@pytest.mark.parametrize(("path", "old", "new"), [
    ("chart/deploy.yaml", "image: nginx\n", "image: {{ .Values.image }}\n{{- if .Values.x }}\n"),
    ("site.yml", "a: 1\n", "{% if x %}\na: 1\n{% endif %}\n"),
    ("c.json", '{"a": 1}\n', '{"a": {{ a }}\n'),
])
def test_templated_data_files_are_text_mode(path: str, old: str, new: str) -> None:
    verdict, _tree = check_edit(path, old, new)
    assert verdict.ok and not verdict.checked and "template markup" in verdict.message


@pytest.mark.parametrize(("old", "new"), [
    ("<p>x</p>\n", "<p>a\n<p>b\n"),
    ("<div>\n<p>x</p>\n</div>\n", "<div>\n<p>a\n<p>b\n</div>\n"),
    ("<select>\n<option>x</option>\n</select>\n", "<select>\n<option>a\n<option>b\n</select>\n"),
    ("<ul>\n<li>x</li>\n</ul>\n", "<ul>\n<li>a\n<li>b\n</ul>\n"),
    ("<p>x</p>\n", "<p>x</p>\n<section>\n<p>open\n"),
])
def test_html_implied_end_tags_are_fine(old: str, new: str) -> None:
    verdict, _tree = check_edit("page.html", old, new)
    assert verdict.ok and verdict.checked, verdict.message


@pytest.mark.parametrize("new", ["<p>x</p>\n<div\n", "<p>x</p>\n</div>\n"])
def test_broken_html_tags_are_still_refused(new: str) -> None:
    verdict, _tree = check_edit("page.html", "<p>x</p>\n", new)
    assert verdict.checked and not verdict.ok

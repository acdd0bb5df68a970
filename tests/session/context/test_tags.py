"""One file's tags: its definitions with signatures, references, words."""

from __future__ import annotations

from spark_cli.edits.lang.definitions import definitions, has_definitions
from spark_cli.engine.brains.code.trees import named_definitions, parse
from spark_cli.session.context.tags import extract

PY = '''\
from shop.pricing import with_tax

RATE = 2


class Cart:
    def add(self, item):
        self.items.append(item)


def total_price(cart):
    return with_tax(sum(cart.items))
'''


def test_python_definitions_with_signature_lines() -> None:
    tags = extract(PY, "python")
    assert [(d.name, d.kind, d.line, d.signature) for d in tags.definitions] == [
        ("RATE", "constant", 2, "RATE = 2"),
        ("Cart", "type", 5, "class Cart:"),
        ("add", "function", 6, "    def add(self, item):"),
        ("total_price", "function", 10, "def total_price(cart):"),
    ]
    assert tags.references == {"append": 1, "with_tax": 1, "sum": 1}  # the query's calls
    assert tags.mentions("with_tax") and tags.mentions("pricing") and not tags.mentions("tax")


def test_typescript_runs_the_javascript_query_too() -> None:
    tags = extract("export function price(): number { return 1 }\ninterface Shape {}\n",
                   "typescript")
    assert {(d.name, d.kind) for d in tags.definitions} == {("price", "function"),
                                                            ("Shape", "type")}


def test_c_has_no_reference_captures_so_words_count() -> None:
    tags = extract("int helper(void) { return 1; }\nint main(void) { return helper(); }\n", "c")
    assert {d.name for d in tags.definitions} == {"helper", "main"}
    assert tags.references["helper"] == 2


def test_without_a_grammar_only_words() -> None:
    assert not has_definitions(None) and not has_definitions("markdown")
    tags = extract("call total_price here\n", None)
    assert tags.definitions == () and tags.references == {"call": 1, "total_price": 1,
                                                           "here": 1}


def test_long_signature_lines_are_cut() -> None:
    line = "def f(" + ", ".join(f"a{i}" for i in range(60)) + "):\n    pass\n"
    signature = extract(line, "python").definitions[0].signature
    assert len(signature) == 120 and signature.endswith("…")


def test_the_map_sees_the_definitions_the_anchors_and_the_brains_see() -> None:
    text = "class Cart:\n    def add(self):\n        pass\n\nRATE = 2\n"
    parsed = parse("cart.py", text)
    assert parsed is not None
    brains = [name for _node, name, _kind in named_definitions(parsed)]
    assert [d.name for d in definitions(text, "python")] == brains == ["Cart", "add"]
    assert [d.name for d in extract(text, "python").definitions] == [*brains, "RATE"]


def test_qualified_methods_and_assigned_functions_are_named_by_their_last_part() -> None:
    cpp = extract("int Shop::total(int n) {\n  return n;\n}\n", "cpp")
    assert [(d.name, d.kind) for d in cpp.definitions] == [("total", "function")]
    js = extract("Cart.prototype.add = function (item) {\n  return item;\n};\n", "javascript")
    assert [d.name for d in js.definitions] == ["add"]


def test_javascript_references_are_the_wheels_reference_patterns() -> None:
    text = 'const fs = require("fs");\nconst cart = new Cart();\ncart.add(total(1));\n'
    assert extract(text, "javascript").references == {"Cart": 1, "add": 1, "total": 1}

"""What a prompt names: repo files (path, tail, unique name) and symbols."""

from __future__ import annotations

import pytest

from spark_cli.session.context.picks import identifiers, named_files, symbols

FILES = ["src/shop/cart.py", "src/shop/pricing.py", "tests/test_cart.py", "web/cart.js",
         "a/util.py", "b/util.py", "README.md"]


@pytest.mark.parametrize(("prompt", "found"), [
    ("fix src/shop/cart.py please", ("src/shop/cart.py",)),
    ("look at `shop/pricing.py`.", ("src/shop/pricing.py",)),
    ("in pricing.py, and test_cart.py", ("src/shop/pricing.py", "tests/test_cart.py")),
    ("update ./web/cart.js and README.md", ("web/cart.js", "README.md")),
    ("cart.py and cart.js", ("src/shop/cart.py", "web/cart.js")),
    ("rename total_price to cart_total", ()),
    ("see nothing.py or e.g. this", ()),
    ("(src/shop/cart.py)", ("src/shop/cart.py",)),
])
def test_named_files(prompt: str, found: tuple[str, ...]) -> None:
    named = named_files(prompt, FILES)
    assert named.found == found and named.ambiguous == ()


def test_an_ambiguous_name_names_nothing_and_says_which() -> None:
    named = named_files("tidy util.py, then a/util.py", FILES)
    assert named.found == ("a/util.py",)
    assert named.ambiguous == (("util.py", ("a/util.py", "b/util.py")),)


def test_identifiers_keep_first_order_without_repeats() -> None:
    assert identifiers("rename total_price to cart_total; total_price!") == [
        "rename", "total_price", "to", "cart_total"]


@pytest.mark.parametrize(("prompt", "expected"), [
    ("rename total_price to cart_total", ["total_price"]),
    ("add a test for Cart", ["Cart"]),
    ("add a docstring to apply_discount", ["apply_discount"]),
    ("rename load to load_config", ["load"]),
    ("remove the print calls", []),
    ("use x here", []),
])
def test_symbols_are_defined_identifiers_that_are_not_plain_words(
        prompt: str, expected: list[str]) -> None:
    defined = {"total_price", "Cart", "apply_discount", "load", "add", "test", "print", "x",
               "remove"}
    assert symbols(prompt, defined) == expected

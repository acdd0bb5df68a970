"""Reading run_command results and pytest's output: text in, values out."""

from __future__ import annotations

import pytest

from spark_cli.engine.brains.code.command_results import (
    StaleName,
    parse_command,
    parse_pytest,
)

COLLECTION_ERROR = """\
==================================== ERRORS ====================================
_____________________ ERROR collecting tests/test_cart.py ______________________
ImportError while importing test module '/tmp/r/tests/test_cart.py'.
Traceback:
tests/test_cart.py:1: in <module>
    from shop.cart import describe, total
E   ImportError: cannot import name 'total' from 'shop.cart' (/tmp/r/src/shop/cart.py)
=========================== short test summary info ============================
ERROR tests/test_cart.py
!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!
1 error in 0.12s
"""
NAME_ERRORS = """\
FF.                                                                      [100%]
=================================== FAILURES ===================================
>       assert total([1, 2]) == 3
E       NameError: name 'total' is not defined

tests/test_cart.py:5: NameError
    def describe(prices):
>       return f"{total(prices)}"
E       NameError: name 'total' is not defined. Did you mean: 'cart_total'?

src/shop/cart.py:9: NameError
=========================== short test summary info ============================
FAILED tests/test_cart.py::test_total - NameError: name 'total' is not defined
FAILED tests/test_cart.py::test_describe - NameError: name 'total' is not ...
========================= 2 failed, 1 passed in 0.05s ==========================
"""


@pytest.mark.parametrize(("head", "status", "code"), [
    ("exit 0 · 1.2 s", "exit", 0),
    ("exit 2 · 0.3 s", "exit", 2),
    ("killed: timeout after 30 s · 30.0 s", "killed", None),
    ("stopped by the user · 0.4 s", "stopped", None),
    ("declined: the user did not allow this command", "declined", None),
    ("running commands is off (--commands)", "off", None),
    ("error: arguments are not valid JSON", "error", None),
])
def test_the_first_line_says_how_it_ended(head: str, status: str, code: int | None) -> None:
    result = parse_command(head + "\nline one\n\nline two\n")
    assert (result.status, result.code, result.head) == (status, code, head)
    assert result.last_lines(10) == ["line one", "line two"]


def test_a_collection_error_is_an_import_of_a_stale_name() -> None:
    run = parse_pytest(COLLECTION_ERROR)
    assert (run.summary, run.errors, run.failed) == ("1 error in 0.12s", 1, 0)
    assert run.failures == ("ERROR tests/test_cart.py",)
    assert run.stale == (StaleName("total", module="shop.cart"),)


def test_name_errors_name_the_file_they_were_raised_in_and_python_s_hint() -> None:
    run = parse_pytest(NAME_ERRORS)
    assert run.summary == "2 failed, 1 passed in 0.05s"
    assert run.failed == 2
    assert len(run.failures) == 2 and len(run.raised) == 2
    assert run.stale == (StaleName("total", where="tests/test_cart.py", hint="cart_total"),)


def test_a_short_traceback_names_the_file_before_the_error() -> None:
    text = ("tests/test_cart.py:5: in test_total\n    assert total([1]) == 1\n"
            "E   NameError: name 'total' is not defined\n1 failed in 0.01s\n")
    assert parse_pytest(text).stale == (StaleName("total", where="tests/test_cart.py"),)


def test_an_assertion_is_no_stale_name_and_other_output_is_not_pytest() -> None:
    run = parse_pytest("E       assert 3 == 4\nE        +  where 3 = f()\n1 failed in 0.01s\n")
    assert run.failed == 1 and run.stale == ()
    assert parse_pytest("make: *** [lint] Error 1\n").summary == ""


@pytest.mark.parametrize(("text", "where"), [
    ("/r/src/shop/cart.py:6: NameError: name 'total' is not defined\n", "/r/src/shop/cart.py"),
    ('  File "/r/src/shop/cart.py", line 6, in describe\n    return total(p)\n'
     "NameError: name 'total' is not defined\n", "/r/src/shop/cart.py"),
    ("FAILED tests/test_cart.py::test_d - NameError: name 'total' is not defined\n", ""),
])
def test_other_traceback_styles_show_the_stale_name_too(text: str, where: str) -> None:
    assert parse_pytest(text + "1 failed in 0.5s\n").stale == (StaleName("total", where=where),)

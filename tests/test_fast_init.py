"""fast_init: shared ``__init__`` templates, compiled with the package up to GRID fields."""

from __future__ import annotations

from dataclasses import field
from pathlib import Path

import pytest

import spark_cli.init_templates
from spark_cli.fast_init import GRID, templates_module
from spark_cli.frozen import frozen
from spark_cli.protocol.values import Value, value


def test_the_compiled_templates_are_what_fast_init_generates():
    text = Path(spark_cli.init_templates.__file__).read_text(encoding="utf-8")
    assert text == templates_module(), (
        "regenerate: python -m spark_cli.fast_init > spark_cli/init_templates.py")


def test_a_shape_in_the_grid_uses_the_compiled_template_one_beyond_is_compiled_here():
    @value
    class Small(Value):
        a: int
        b: str = "b"

    names = [f"f{i}" for i in range(GRID + 1)]
    Big = frozen(type("Big", (), {"__annotations__": dict.fromkeys(names, "int"),
                                  "__module__": __name__, "__doc__": "Big."}))
    assert Small.__init__.__code__.co_filename == spark_cli.init_templates.__file__
    assert Big.__init__.__code__.co_filename != spark_cli.init_templates.__file__
    assert (Small(1).a, Small(1).b, Small(1, "x").b) == (1, "b", "x")
    big = Big(*range(GRID + 1))
    assert [getattr(big, n) for n in names] == list(range(GRID + 1))
    with pytest.raises(TypeError, match=r"Big.__init__\(\) missing 1 required positional "
                                        r"argument: 'f12'"):
        Big(*range(GRID))


def test_a_class_with_a_default_factory_makes_a_fresh_value_for_each_instance():
    @frozen
    class Bag:
        name: str
        size: int = 3
        items: list[int] = field(default_factory=list)

        def __post_init__(self) -> None:
            self.items.append(self.size)

    one, two = Bag("a"), Bag("b", 5)
    assert (one.items, two.items) == ([3], [5]) and one.items is not two.items
    kept = [9]
    assert Bag("c", 1, kept).items is kept and kept == [9, 1]

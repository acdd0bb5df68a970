import dataclasses

import pytest

from spark_cli.protocol.values import Value, value


@value
class Point(Value):
    x: int
    y: int = 0


@value
class Other(Value):
    x: int
    y: int = 0


def test_values_compare_and_print_like_dataclasses() -> None:
    assert Point(1, 2) == Point(1, 2) and Point(1, 2) != Point(1, 3)
    assert Point(1, 2) != Other(1, 2)
    assert repr(Point(1)) == "Point(x=1, y=0)"
    assert [f.name for f in dataclasses.fields(Point)] == ["x", "y"]
    assert dataclasses.replace(Point(1), y=5) == Point(1, 5)
    assert not hasattr(Point(1), "__dict__")
    with pytest.raises(TypeError):
        hash(Point(1))

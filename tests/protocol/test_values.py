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


@value
class Bag(Value):
    name: str
    items: list[int] = dataclasses.field(default_factory=list)


def test_the_shared_init_takes_arguments_as_a_dataclass_init_does() -> None:
    assert Point(y=2, x=1) == Point(1, 2)
    assert Bag("a").items == [] and Bag("a").items is not Bag("a").items
    assert Bag("a", [1]).items == [1]
    point = Point(1)
    point.y = 9  # not frozen: plain attribute assignment
    assert point.y == 9
    with pytest.raises(TypeError, match=r"Point.__init__\(\) missing 1 required positional "
                                        r"argument: 'x'"):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'z'"):
        Point(1, z=2)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="takes from 2 to 3 positional arguments but 4"):
        Point(1, 2, 3)  # type: ignore[call-arg]

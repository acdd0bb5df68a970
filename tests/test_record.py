"""``@record`` behaves as ``@dataclass(frozen=True, slots=True)`` on every point spark uses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest

from spark_cli.record import record


@record
class Point:
    """A record with every kind of field spark declares."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict, repr=False)
    note: str | None = field(default=None, compare=False)


@dataclass(frozen=True, slots=True)
class Twin:
    """The same, declared with dataclasses."""

    x: int
    y: int = 0
    tags: tuple[str, ...] = ()
    extra: dict[str, int] = field(default_factory=dict, repr=False)
    note: str | None = field(default=None, compare=False)


@record
class Checked:
    """A record that checks itself when made."""

    n: int

    def __post_init__(self) -> None:
        if self.n < 0:
            raise ValueError("n must not be negative")


@record
class Shown:
    """A record with its own ``__repr__``."""

    secret: str

    def __repr__(self) -> str:
        return "Shown(***)"


@record
class Empty:
    """A record without fields."""


def test_made_compared_hashed_and_shown_as_a_frozen_dataclass() -> None:
    for cls in (Point, Twin):
        a = cls(1, y=2, tags=("t",), note="n")
        assert a == cls(1, 2, ("t",), note="other") and a != cls(2)
        with pytest.raises(TypeError, match="unhashable type: 'dict'"):
            hash(a)  # a dict field is compared, so hashed: neither hashes
        assert a.extra == {} and a.extra is not cls(1).extra
    assert repr(Point(1, 2, ("t",), {"k": 1}, "n")) == repr(Twin(1, 2, ("t",), {"k": 1}, "n")) \
        .replace("Twin", "Point")
    assert Point(1) != Twin(1) and Point(1).__eq__(Twin(1)) is NotImplemented
    assert hash(Checked(1)) == hash(Checked(1)) and {Checked(1), Checked(1)} == {Checked(1)}
    assert Empty() == Empty() and hash(Empty()) == hash(Empty()) and repr(Empty()) == "Empty()"


def test_frozen_and_slotted() -> None:
    point = Point(1)
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'x'"):
        point.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'x'"):
        del point.x  # type: ignore[misc]
    assert not hasattr(point, "__dict__") and "x" in Point.__slots__


def test_dataclasses_tools_match_copy_and_pickle_work() -> None:
    point = Point(1, 2, note="n")
    assert dataclasses.is_dataclass(point)
    assert [f.name for f in dataclasses.fields(point)] == ["x", "y", "tags", "extra", "note"]
    assert dataclasses.replace(point, y=5) == Point(1, 5)
    assert dataclasses.asdict(point)["note"] == "n"
    assert Point.__match_args__ == Twin.__match_args__
    match point:
        case Point(1, y):
            assert y == 2
        case _:
            pytest.fail("no match")
    for other in (copy.copy(point), copy.deepcopy(point), pickle.loads(pickle.dumps(point))):
        assert other == point and other.note == "n"


def test_post_init_runs_and_a_class_keeps_its_own_methods() -> None:
    with pytest.raises(ValueError, match="negative"):
        Checked(-1)
    assert Checked(1).n == 1
    assert repr(Shown("pw")) == "Shown(***)" and Shown("a") == Shown("a")


def test_a_record_cannot_define_its_own_setattr() -> None:
    with pytest.raises(TypeError, match="__setattr__"):
        @record
        class Loose:
            """Not frozen."""

            x: int

            def __setattr__(self, name: str, value: object) -> None: ...


def test_a_field_left_out_of_init_or_keyword_only_is_refused() -> None:
    with pytest.raises(TypeError, match="init=False"):
        @record
        class Hidden:
            """A field __init__ would not set."""

            x: int = field(default=0, init=False)

    with pytest.raises(TypeError, match="kw_only"):
        @record
        class Keyword:
            """A keyword-only field."""

            x: int = field(default=0, kw_only=True)


def test_a_record_compares_by_its_fields_only() -> None:
    with pytest.raises(TypeError, match="__eq__"):
        @record
        class Loose:
            """Its own equality."""

            x: int

            def __eq__(self, other: object) -> bool:
                return True

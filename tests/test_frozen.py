"""``@frozen`` behaves as ``@dataclass(frozen=True, slots=True)`` does, class for class."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import InitVar, dataclass, field

import pytest

from spark_cli.frozen import frozen


@dataclass(frozen=True, slots=True)
class Old:
    name: str
    size: int = 3
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str | None = field(default=None, compare=False)
    secret: str = field(default="", repr=False)


@frozen
class New:
    name: str
    size: int = 3
    tags: tuple[str, ...] = field(default_factory=tuple)
    note: str | None = field(default=None, compare=False)
    secret: str = field(default="", repr=False)


@frozen
class One:
    """One field: its key is still a tuple."""

    only: float


@frozen
class Listed:
    items: list[int] = field(default_factory=list)


CASES = [(("a",), {}), (("a", 5), {}), (("a",), {"tags": ("x",), "note": "n"}),
         ((), {"name": "b", "secret": "s", "size": 0})]


@pytest.mark.parametrize(("args", "kwargs"), CASES)
def test_same_equality_hash_and_repr_as_a_frozen_dataclass(args, kwargs):
    old, new = Old(*args, **kwargs), New(*args, **kwargs)
    assert repr(new) == repr(old).replace("Old(", "New(", 1)
    assert hash(new) == hash(old)
    assert new == New(*args, **kwargs)
    assert not new.__ne__(New(*args, **kwargs))
    assert new == dataclasses.replace(new, note="other")  # compare=False
    assert new != dataclasses.replace(new, size=99)
    assert (new == old) is False  # another class: NotImplemented both ways, then identity
    assert dataclasses.astuple(new) == dataclasses.astuple(old)
    assert [f.name for f in dataclasses.fields(new)] == [f.name for f in dataclasses.fields(old)]


def test_assignment_and_deletion_raise_frozen_instance_error():
    new = New("a")
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'size'"):
        new.size = 4  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError, match="'name'"):
        del new.name  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        new.extra = 1  # type: ignore[attr-defined]
    assert new.size == 3


def test_defaults_factories_and_argument_errors_as_dataclasses_give():
    assert Listed().items == [] and Listed().items is not Listed().items
    assert Listed([1]).items == [1]
    assert New("a").tags == () and New.__match_args__ == Old.__match_args__
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'name'"):
        New()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unexpected keyword argument 'nope'"):
        New("a", nope=1)  # type: ignore[call-arg]
    assert not hasattr(New("a"), "__dict__")


def test_one_field_and_match():
    assert One(1.5) == One(1.5) and hash(One(1.5)) == hash((1.5,))
    match New("a", 2):
        case New(name, size=2):
            assert name == "a"
        case _:
            pytest.fail("no match")


def test_copy_pickle_replace_asdict():
    new = New("a", 2, ("t",), "n", "s")
    assert copy.copy(new) == new and copy.deepcopy(new) == new
    back = pickle.loads(pickle.dumps(new))
    assert back == new and back.note == "n" and back.secret == "s"
    assert dataclasses.asdict(new) == {"name": "a", "size": 2, "tags": ("t",), "note": "n",
                                       "secret": "s"}
    assert dataclasses.replace(new, size=7).size == 7


def test_post_init_runs_last_as_a_dataclass_s_does():
    @frozen
    class Checked:
        low: int
        high: int = 10
        tags: tuple[str, ...] = field(default_factory=tuple)

        def __post_init__(self) -> None:
            if self.low > self.high or self.tags != ():
                raise ValueError(f"bad range {self.low}..{self.high}")

    assert Checked(3).high == 10 and Checked(3) == Checked(3, 10)
    with pytest.raises(ValueError, match=r"bad range 11\.\.10"):
        Checked(11)
    with pytest.raises(ValueError, match=r"bad range 1\.\.2"):
        Checked(1, 2, ("x",))  # the factory's field is stored before the check runs
    assert dataclasses.replace(Checked(1), high=5).high == 5
    with pytest.raises(ValueError):
        dataclasses.replace(Checked(1), low=50)


def test_what_it_does_not_support_is_refused_at_class_creation():
    with pytest.raises(TypeError, match="kw_only"):
        @frozen
        class KwOnly:
            a: int = field(kw_only=True)

    with pytest.raises(TypeError, match="InitVar"):
        @frozen
        class WithInitVar:
            a: InitVar[int]


def test_a_class_without_docstring_is_documented_by_its_name():
    assert New.__doc__ == "New" and One.__doc__ == "One field: its key is still a tuple."


def test_init_templates_are_shared_but_each_class_names_its_own_fields():
    @frozen
    class Pair:
        left: int
        right: int = 2

    @frozen
    class Other:
        top: str
        bottom: str = "b"

    assert Pair.__init__.__code__.co_code == Other.__init__.__code__.co_code
    assert Pair.__init__.__code__.co_varnames == ("self", "left", "right")
    assert Pair.__init__.__qualname__.endswith("Pair.__init__")
    assert (Pair(1).right, Other("t").bottom) == (2, "b")
    with pytest.raises(TypeError, match=r"Pair.__init__\(\) missing 1 required positional "
                                        r"argument: 'left'"):
        Pair()  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="non-default argument 'late' follows default argument"):
        @frozen
        class Misordered:
            early: int = 1
            late: int  # type: ignore[misc]

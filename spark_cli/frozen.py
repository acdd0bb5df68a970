"""``@frozen``: a frozen, slotted dataclass that compiles one method instead of six.

``@dataclass(frozen=True, slots=True)`` compiles ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` for every class
(~1 ms of import each, callgrind: ~3.3 M instructions; a docstring-less class
also pays an ``inspect.signature`` for its ``__doc__``). About fifty such
classes stood between ``spark edit`` and its request leaving. ``@frozen``
compiles nothing per class (``dataclass(init=False, eq=False, repr=False)``
gives the fields, slots and ``__match_args__``; ``__init__`` comes from
:mod:`spark_cli.fast_init`); the other methods are shared, and give what the
generated ones give:

- ``==`` compares the ``compare`` fields as a tuple, only with the same class
  (else ``NotImplemented``); ``hash`` is the hash of that tuple (``hash=``
  honoured); ``repr`` is ``Name(field=value, ...)`` over the ``repr`` fields;
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``;
- copy and pickle work (the same ``__getstate__`` / ``__setstate__`` a frozen
  slotted dataclass has); ``fields``, ``replace``, ``asdict`` and ``match``
  work as on any dataclass.

A class without a docstring gets its name as ``__doc__`` (dataclasses would
compute its signature for it). A ``__post_init__`` runs last, as a dataclass's
does (to validate: it cannot assign fields, being frozen). Not supported (a
``TypeError`` at class creation says so): ``InitVar``, ``kw_only`` and
``init=False`` fields. Imports nothing of spark: every package may use it,
the ``edits`` leaf included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

from spark_cli.fast_init import make_init, slotted_fields

_T = TypeVar("_T")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is not self.__class__:
        return NotImplemented
    key = self.__frozen_compare__
    return key(self) == key(other)


def _hash(self: Any) -> int:
    return hash(self.__frozen_hash__(self))


def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__frozen_repr__)
    return f"{self.__class__.__qualname__}({shown})"


def _setattr(self: Any, name: str, value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


def _getstate(self: Any) -> list[object]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[object]) -> None:
    for f, item in zip(dataclasses.fields(self), state, strict=True):
        object.__setattr__(self, f.name, item)


def _key(names: tuple[str, ...]) -> Callable[[Any], tuple[object, ...]]:
    """``obj -> (obj.a, obj.b, ...)`` (always a tuple, as the generated methods build)."""
    if len(names) == 1:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    if not names:
        return lambda obj: ()
    return attrgetter(*names)  # a tuple for 2+ names


@dataclass_transform(frozen_default=True, eq_default=True)
def frozen(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen, slotted dataclass (see the module docstring)."""
    made, fields = slotted_fields(cls, "@frozen")
    compare = tuple(f.name for f in fields if f.compare)
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    made.__init__ = make_init(made, fields, frozen=True)
    made.__frozen_compare__ = staticmethod(_key(compare))
    made.__frozen_hash__ = staticmethod(_key(hashed))
    made.__frozen_repr__ = tuple(f.name for f in fields if f.repr)
    made.__eq__ = _eq
    made.__hash__ = _hash
    made.__repr__ = _repr
    made.__setattr__ = _setattr
    made.__delattr__ = _delattr
    made.__getstate__ = _getstate
    made.__setstate__ = _setstate
    return made  # type: ignore[no-any-return]

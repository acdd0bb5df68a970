"""The one record type: ``@record`` declares a frozen, slotted dataclass that compiles only its
``__init__`` and shares the other five methods. Kept by the ledger (docs/benchmarks.md):
`spark bench oneshot` shows launch -> request."""

from __future__ import annotations

import dataclasses
import reprlib
from dataclasses import MISSING, FrozenInstanceError
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
_FACTORY = object()
"""The default of a parameter whose field has a ``default_factory``: not passed."""
_OWN = ("__setattr__", "__delattr__", "__eq__", "__hash__")


def _setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self: Any, other: Any) -> Any:
    if other.__class__ is self.__class__:
        key = self.__record_key__
        return key(self) == key(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__record_key__(self))


@reprlib.recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__record_shown__)
    return f"{type(self).__qualname__}({shown})"


def _getstate(self: Any) -> list[Any]:
    return [getattr(self, f.name) for f in dataclasses.fields(self)]


def _setstate(self: Any, state: list[Any]) -> None:
    for f, value in zip(dataclasses.fields(self), state, strict=True):
        object.__setattr__(self, f.name, value)


def _key(names: tuple[str, ...]) -> Any:
    """The tuple of ``names``' values (what a record compares and hashes)."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Any:
    """``cls.__init__``: fields set, defaults and factories applied, then ``__post_init__``."""
    names: dict[str, Any] = {"__set": object.__setattr__, "__factory": _FACTORY}
    params: list[str] = []
    body: list[str] = []
    for f in fields:
        if not f.init or f.kw_only:  # no record needs them: say so rather than ignore them
            raise TypeError(f"{cls.__name__}.{f.name}: a record's fields are all __init__ "
                            "parameters (no init=False, no kw_only)")
        value = f.name
        if f.default_factory is not MISSING:
            names[f"__f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=__factory")
            value = f"__f_{f.name}() if {f.name} is __factory else {f.name}"
        elif f.default is not MISSING:
            names[f"__d_{f.name}"] = f.default
            params.append(f"{f.name}=__d_{f.name}")
        else:
            params.append(f.name)
        body.append(f"    __set(self, {f.name!r}, {value})")
    if hasattr(cls, "__post_init__"):
        body.append("    self.__post_init__()")
    source = f"def __init__({', '.join(['self', *params])}):\n" + ("\n".join(body) or "    pass")
    exec(source + "\n", names)  # the one generated method, compiled as dataclasses compiles it
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field,))
def record(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen, slotted dataclass (see the module doc)."""
    own = dict(cls.__dict__)
    for name in _OWN:
        if name in own:
            raise TypeError(f"cannot overwrite attribute {name} in class {cls.__name__}")
    made: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False, slots=True)
    fields = dataclasses.fields(made)
    made.__init__ = _init(made, fields)
    made.__setattr__ = _setattr
    made.__delattr__ = _delattr
    made.__getstate__ = _getstate
    made.__setstate__ = _setstate
    made.__record_key__ = staticmethod(_key(tuple(f.name for f in fields if f.compare)))
    made.__record_shown__ = tuple(f.name for f in fields if f.repr)
    if "__repr__" not in own:
        made.__repr__ = _repr
    made.__eq__ = _eq
    made.__hash__ = _hash
    result: type[_T] = made
    return result

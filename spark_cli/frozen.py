"""``@frozen``: a frozen, slotted dataclass that compiles one method instead of six.

``@dataclass(frozen=True, slots=True)`` compiles ``__init__``, ``__repr__``,
``__eq__``, ``__hash__``, ``__setattr__`` and ``__delattr__`` for every class
(~1 ms of import each, callgrind: ~3.3 M instructions; a docstring-less class
also pays an ``inspect.signature`` for its ``__doc__``). About fifty such
classes stood between ``spark edit`` and its request leaving. ``@frozen``
compiles only ``__init__`` (``dataclass(init=False, eq=False, repr=False)``
gives the fields, slots and ``__match_args__``); the other methods are shared,
and give what the generated ones give:

- ``==`` compares the ``compare`` fields as a tuple, only with the same class
  (else ``NotImplemented``); ``hash`` is the hash of that tuple (``hash=``
  honoured); ``repr`` is ``Name(field=value, ...)`` over the ``repr`` fields;
- assigning or deleting an attribute raises ``dataclasses.FrozenInstanceError``;
- copy and pickle work (the same ``__getstate__`` / ``__setstate__`` a frozen
  slotted dataclass has); ``fields``, ``replace``, ``asdict`` and ``match``
  work as on any dataclass.

A class without a docstring gets its name as ``__doc__`` (dataclasses would
compute its signature for it). Not supported (a ``TypeError`` at class
creation says so): ``__post_init__``, ``InitVar``, ``kw_only`` and
``init=False`` fields. Imports nothing of spark: every package may use it,
the ``edits`` leaf included.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from operator import attrgetter
from typing import Any, TypeVar, dataclass_transform

_T = TypeVar("_T")
_MISSING = dataclasses.MISSING
_INITVAR = getattr(dataclasses, "_FIELD_INITVAR", None)


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


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Any:
    """The class's ``__init__``, compiled once: ``object.__setattr__`` per field, as a
    frozen dataclass's does; defaults and default factories as dataclasses treat them."""
    scope: dict[str, object] = {"__set": object.__setattr__, "__missing": _MISSING}
    params, body = [], []
    for f in fields:
        if f.default is not _MISSING:
            scope[f"__d_{f.name}"] = f.default
            params.append(f"{f.name}=__d_{f.name}")
            body.append(f"__set(self, {f.name!r}, {f.name})")
        elif f.default_factory is not _MISSING:
            scope[f"__f_{f.name}"] = f.default_factory
            params.append(f"{f.name}=__missing")
            body.append(f"__set(self, {f.name!r}, __f_{f.name}() if {f.name} is __missing "
                        f"else {f.name})")
        else:
            params.append(f.name)
            body.append(f"__set(self, {f.name!r}, {f.name})")
    source = (f"def __init__(self, {', '.join(params)}):\n    "
              + ("\n    ".join(body) if body else "pass") + "\n")
    exec(source, scope)  # the same technique dataclasses uses
    init: Any = scope["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    return init


@dataclass_transform(frozen_default=True, eq_default=True)
def frozen(cls: type[_T]) -> type[_T]:
    """Make ``cls`` a frozen, slotted dataclass (see the module docstring)."""
    if "__post_init__" in cls.__dict__:
        raise TypeError(f"@frozen {cls.__qualname__}: __post_init__ is not supported")
    if not cls.__dict__.get("__doc__"):
        cls.__doc__ = cls.__name__  # what dataclasses would compute with inspect.signature
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    fields = dataclasses.fields(made)
    for f in fields:
        if not f.init or f.kw_only:
            raise TypeError(f"@frozen {cls.__qualname__}.{f.name}: init=False and kw_only "
                            "fields are not supported")
    if any(getattr(f, "_field_type", None) is _INITVAR
           for f in made.__dataclass_fields__.values()):
        raise TypeError(f"@frozen {cls.__qualname__}: InitVar fields are not supported")
    compare = tuple(f.name for f in fields if f.compare)
    hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
    made.__init__ = _init(made, fields)
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

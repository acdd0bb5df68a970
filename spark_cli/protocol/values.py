"""Cheap value classes: slotted dataclasses that compile no code of their own.

``@dataclass`` compiles every method it generates (~0.4 ms per class at
import, twice that when ``frozen``); on the launch -> request path a dozen
event classes add up. ``@value`` on a subclass of :class:`Value` generates only
``__init__`` (and that from a shared template, :mod:`spark_cli.fast_init`);
equality and ``repr`` come from the base, by field, with the same results a
generated ``__eq__`` / ``__repr__`` gives. The classes stay
dataclasses (``dataclasses.fields``, ``replace`` and ``asdict`` work). Not
frozen: treat the values as immutable all the same.
"""

from __future__ import annotations

from typing import TypeVar, dataclass_transform

from spark_cli.fast_init import make_init, slotted_fields

_T = TypeVar("_T")


class Value:
    """``__eq__`` and ``__repr__`` by field (the slotted dataclass's ``__slots__``)."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names: tuple[str, ...] = self.__slots__
        return all(getattr(self, name) == getattr(other, name) for name in names)

    __hash__ = None  # type: ignore[assignment]  # mutable, like a dataclass with eq

    def __repr__(self) -> str:
        names: tuple[str, ...] = self.__slots__
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({fields})"


@dataclass_transform(eq_default=True)
def value(cls: type[_T]) -> type[_T]:
    """Make ``cls`` (a :class:`Value` subclass) a slotted dataclass with only ``__init__``
    (from :mod:`spark_cli.fast_init`: no code compiled per class)."""
    made, fields = slotted_fields(cls, "@value")
    made.__init__ = make_init(made, fields, frozen=False)
    return made  # type: ignore[no-any-return]

"""A dataclass's ``__init__`` without compiling one per class.

``dataclasses`` writes each class's ``__init__`` as source and compiles it
(~0.55 M instructions a class; ``@frozen`` and ``@value`` classes, ~45 of them
before `spark edit`'s request leaves, need nothing else compiled). The code of
an ``__init__`` depends only on the number of fields and which have a default
factory: :func:`make_init` compiles one template per such shape, with
placeholder names, and gives each class a copy with its own field names
(``CodeType.replace``) and its own defaults (the function's ``__defaults__``).
The result is the function dataclasses would generate: the same parameters,
defaults, factory calls and ``TypeError`` messages (``A.__init__() missing 1
required positional argument: 'name'``).

``frozen=True`` stores with ``object.__setattr__`` (as a frozen dataclass's
``__init__`` does), else with plain attribute assignment. A class that defines
``__post_init__`` has it called last, with no arguments, as dataclasses does
(there are no ``InitVar`` fields). Imports nothing of spark.
"""

from __future__ import annotations

import dataclasses
import types
from functools import cache
from typing import Any

_MISSING = dataclasses.MISSING
_INITVAR = getattr(dataclasses, "_FIELD_INITVAR", None)


def slotted_fields(cls: type, label: str) -> tuple[Any, tuple[dataclasses.Field[Any], ...]]:
    """``cls`` as a slotted dataclass with nothing generated (no ``__init__``, ``__eq__``,
    ``__repr__``) and its fields; a ``TypeError`` for what :func:`make_init` cannot do
    (``InitVar``, ``kw_only`` or ``init=False`` fields). A class without a docstring gets
    its name as ``__doc__`` (dataclasses would compute its signature)."""
    if not cls.__dict__.get("__doc__"):
        cls.__doc__ = cls.__name__
    made: Any = dataclasses.dataclass(init=False, repr=False, eq=False, slots=True)(cls)
    fields = dataclasses.fields(made)
    for f in fields:
        if not f.init or f.kw_only:
            raise TypeError(f"{label} {cls.__qualname__}.{f.name}: init=False and kw_only "
                            "fields are not supported")
    if any(getattr(f, "_field_type", None) is _INITVAR
           for f in made.__dataclass_fields__.values()):
        raise TypeError(f"{label} {cls.__qualname__}: InitVar fields are not supported")
    return made, fields


@cache
def _template(count: int, factories: tuple[int, ...], frozen: bool,
              post_init: bool = False) -> types.CodeType:
    """``__init__(self, _0, _1, ...)`` storing each ``_i`` (field ``i``), calling
    ``__f_i()`` for the fields in ``factories`` when they were not given, then
    ``self.__post_init__()`` when ``post_init``."""
    body = []
    for i in range(count):
        given = f"(__f_{i}() if _{i} is __missing else _{i})" if i in factories else f"_{i}"
        body.append(f"__set(self, '_{i}', {given})" if frozen else f"self._{i} = {given}")
    if post_init:
        body.append("self.__post_init__()")
    params = "".join(f", _{i}" for i in range(count))
    source = f"def __init__(self{params}):\n    " + ("\n    ".join(body) or "pass") + "\n"
    scope: dict[str, Any] = {}
    exec(source, scope)  # once per shape, as dataclasses does once per class
    code: types.CodeType = scope["__init__"].__code__
    return code


def make_init(cls: type, fields: tuple[dataclasses.Field[Any], ...], *,
              frozen: bool) -> types.FunctionType:
    """``cls``'s ``__init__`` over ``fields`` (see the module docstring)."""
    names = tuple(f.name for f in fields)
    factories = tuple(i for i, f in enumerate(fields) if f.default_factory is not _MISSING)
    defaults: list[object] = []
    for f in fields:
        if f.default is not _MISSING:
            defaults.append(f.default)
        elif f.default_factory is not _MISSING:
            defaults.append(_MISSING)
        elif defaults:
            raise TypeError(f"non-default argument {f.name!r} follows default argument")
    template = _template(len(names), factories, frozen, hasattr(cls, "__post_init__"))
    rename = {f"_{i}": name for i, name in enumerate(names)}
    code = template.replace(
        co_varnames=tuple(rename.get(v, v) for v in template.co_varnames),
        co_names=tuple(rename.get(n, n) for n in template.co_names),
        co_consts=tuple(rename.get(c, c) if isinstance(c, str) else c
                        for c in template.co_consts),
        co_qualname=f"{cls.__qualname__}.__init__",
    )
    scope: dict[str, Any] = {"__set": object.__setattr__, "__missing": _MISSING,
                             "__builtins__": __builtins__}
    for i in factories:
        scope[f"__f_{i}"] = fields[i].default_factory
    init = types.FunctionType(code, scope, "__init__", tuple(defaults) or None)
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init

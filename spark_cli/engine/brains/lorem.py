"""The ``lorem`` brain for load tests: endless, deterministic code-like lines, made once from
a fixed seed and cycled (the engine stops pulling at ``max_output_tokens``)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from functools import cache

from spark_cli.engine.brains.base import BrainRequest

SEED = 20250
LINES = 512

_NAMES = ("value", "items", "result", "count", "buffer", "offset", "total", "record",
          "config", "token", "frame", "queue", "cursor", "window", "limit", "payload")
_FUNCS = ("load", "parse", "render", "flush", "merge", "split", "update", "resolve",
          "encode", "decode", "schedule", "measure", "collect", "validate")
_HEADS = (
    "def {f}_{n}({n}, {m}=None):",
    "def {f}({n}: int, {m}: list[int]) -> int:",
    "async def {f}_{m}(self, {n}):",
)
_BODY = (
    "    {n} = {f}({m}, limit={k})",
    "    if {n} is None:\n        return {m}",
    "    for {n} in {m}:\n        {m}.append({f}({n}))",
    "    {n} += len({m}) * {k}",
    "    while {n} < {k}:\n        {n} = {f}_{m}({n} + 1)",
    "    # {f} every {n} before the {m}",
    "    {n} = {{\"{m}\": {k}, \"{n}\": [{k}, {k2}]}}",
    "    \"\"\"{F} the {n} of a {m}.\"\"\"",
)


def _fill(rng: random.Random, template: str) -> str:
    n, m = rng.sample(_NAMES, 2)
    f = rng.choice(_FUNCS)
    return template.format(n=n, m=m, f=f, F=f.capitalize(), k=rng.randrange(1, 100),
                           k2=rng.randrange(100, 1000))


@cache
def material() -> tuple[str, ...]:
    """The precomputed lines (each ends with a newline), the same on every run."""
    rng = random.Random(SEED)
    out: list[str] = []
    while len(out) < LINES:
        out.append(_fill(rng, rng.choice(_HEADS)) + "\n")
        for _ in range(rng.randrange(2, 7)):
            out.extend(line + "\n" for line in _fill(rng, rng.choice(_BODY)).split("\n"))
        out.append("    return " + rng.choice(_NAMES) + "\n")
        out.append("\n")
    return tuple(out)


class LoremBrain:
    """Answers every request with the same endless stream of code-like lines."""

    name = "lorem"
    inline = True
    """Its chunks are precomputed: the engine pulls them on the event loop (no thread hop)."""

    def answer(self, request: BrainRequest) -> Iterator[str]:
        return itertools.cycle(material())

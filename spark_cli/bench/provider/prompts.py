"""Prompts of a chosen size for `spark bench provider`, each with a first line of its own (a
server that caches prompts would not process a repeated one again) unless ``same``.
"""

from __future__ import annotations

import random

from spark_cli.protocol.tokens import count_tokens

QUESTION = "In one sentence, what does the module above do? Answer in plain words."
_NAMES = ("load", "parse", "merge", "render", "score", "split", "check", "index", "pack",
          "trim", "fetch", "store", "match", "count", "shift", "route")
_TYPES = ("int", "str", "list[int]", "dict[str, int]", "float", "bytes")


def parse_size(text: str) -> int:
    """``1k`` -> 1000, ``16k`` -> 16000, ``512`` -> 512 (tokens)."""
    word = text.strip().lower()
    scale = 1000 if word.endswith("k") else 1
    number = word[:-1] if word.endswith("k") else word
    value = int(float(number) * scale)
    if value <= 0:
        raise ValueError(f"a prompt size must be above 0, not {text!r}")
    return value


def size_label(tokens: int) -> str:
    """``16000`` -> ``16k``; ``512`` -> ``512``."""
    return f"{tokens // 1000}k" if tokens % 1000 == 0 else str(tokens)


def _function(rng: random.Random, n: int) -> str:
    name = f"{rng.choice(_NAMES)}_{rng.choice(_NAMES)}_{n}"
    arg, ret = rng.choice(_TYPES), rng.choice(_TYPES)
    k, m = rng.randint(2, 97), rng.randint(2, 97)
    return (f"def {name}(value: {arg}, limit: int = {k}) -> {ret}:\n"
            f'    """{name.replace("_", " ").capitalize()} a value, at most {k} times."""\n'
            f"    total = 0\n"
            f"    for step in range({m}):\n"
            f"        if step > limit:\n"
            f"            break\n"
            f"        total += step * {k} % {m}\n"
            f"    return total  # {rng.random():.6f}\n\n\n")


def prompt(tokens: int, repetition: int, *, same: bool = False, seed: int = 0) -> str:
    """About ``tokens`` tokens: a unique first line (unless ``same``), code, the question."""
    key = seed if same else seed * 1_000_003 + repetition
    rng = random.Random(f"{key}/{tokens}")
    head = (f"Request {rng.getrandbits(64):016x}.\n\n" if not same
            else "Request 0000000000000000.\n\n")
    tail = f"\n{QUESTION}\n"
    budget = tokens - count_tokens(head) - count_tokens(tail)
    parts: list[str] = ["```python\n"]
    used = count_tokens(parts[0]) + 1
    n = 0
    while used < budget:
        piece = _function(rng, n)
        parts.append(piece)
        used += count_tokens(piece)
        n += 1
    parts.append("```\n")
    return head + "".join(parts) + tail

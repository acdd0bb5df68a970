"""Prompts of a chosen size for `spark bench provider`, each with a first line of its own (a
server that caches prompts would not process a repeated one again) unless ``same``."""

from __future__ import annotations

import random

from spark_cli.engine.brains.lorem import material
from spark_cli.protocol.tokens import count_tokens

QUESTION = "In one sentence, what does the module above do? Answer in plain words."


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


def prompt(tokens: int, repetition: int, *, same: bool = False, seed: int = 0) -> str:
    """About ``tokens`` tokens: a unique first line (unless ``same``), code, the question."""
    key = seed if same else seed * 1_000_003 + repetition
    rng = random.Random(f"{key}/{tokens}")
    head = (f"Request {rng.getrandbits(64):016x}.\n\n" if not same
            else "Request 0000000000000000.\n\n")
    tail = f"\n{QUESTION}\n"
    budget = tokens - count_tokens(head) - count_tokens(tail)
    # the lorem brain's code-like functions, from a place of this prompt's own
    functions = [f + "\n\n" for f in "".join(material()).split("\n\n") if f]
    at = rng.randrange(len(functions))
    parts: list[str] = ["```python\n"]
    used = count_tokens(parts[0]) + 1
    while used < budget:
        piece = functions[at % len(functions)]
        size = count_tokens(piece)
        if used + size - budget > budget - used:  # nearer the size without it
            break
        parts.append(piece)
        used += size
        at += 1
    parts.append("```\n")
    return head + "".join(parts) + tail

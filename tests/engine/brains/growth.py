"""How much longer work takes at four times the input, measured in one run: the linearity
checks' clock (no wall-clock bound, so a loaded machine slows both sizes alike)."""

from __future__ import annotations

import time
from collections.abc import Callable

GROWTH = 10.0
"""The bound for 4x the input: linear work grows about 4x, quadratic 16x."""


def growth(work: Callable[[int], object], size: int) -> float:
    """How much longer ``work(4 * size)`` takes than ``work(size)``: best of three each,
    the two sizes alternating."""
    best = {size: float("inf"), 4 * size: float("inf")}
    for _ in range(3):
        for n in best:
            started = time.perf_counter()
            work(n)
            best[n] = min(best[n], time.perf_counter() - started)
    return best[4 * size] / best[size]

"""How much longer work takes at eight times the input, measured in one run: the linearity
checks' clock (no wall-clock bound, so a loaded machine slows both sizes alike; the cycle
collector is off while the work is timed, as its passes depend on the whole process)."""

from __future__ import annotations

import gc
import time
from collections.abc import Callable

FACTOR = 8
GROWTH = 24.0
"""The bound for 8x the input: linear work grows about 8x, quadratic 64x."""


def growth(work: Callable[[int], object], size: int) -> float:
    """How much longer ``work(FACTOR * size)`` takes than ``work(size)``: best of three each,
    the two sizes alternating."""
    best = {size: float("inf"), FACTOR * size: float("inf")}
    for _ in range(3):
        for n in best:
            gc.collect()
            gc.disable()
            try:
                started = time.perf_counter()
                work(n)
                best[n] = min(best[n], time.perf_counter() - started)
            finally:
                gc.enable()
    return best[FACTOR * size] / best[size]

"""Latency marks of one turn (what `spark bench oneshot` and the JSON summary read).

Stamped with ``time.perf_counter()`` (CLOCK_MONOTONIC on Linux, as ``time.monotonic()``, so a
parent process can compare); each delta is stamped once.
"""

from __future__ import annotations


class TurnMarks:
    """``perf_counter`` stamps of one turn (a plain class: cheaper to import than a dataclass)."""

    __slots__ = ("chars", "first_delta_at", "first_output_at", "last_delta_at",
                 "request_sent_at", "round_trip_cpu", "round_trips", "stream_ended_at")

    def __init__(self) -> None:
        self.chars = 0
        """Characters of answer text so far (a front end's live tok/s)."""
        self.request_sent_at: float | None = None
        self.first_delta_at: float | None = None
        self.last_delta_at: float | None = None
        self.stream_ended_at: float | None = None
        self.first_output_at: float | None = None
        self.round_trips: list[float] = []
        """Seconds of spark's side per tool round trip, in order."""
        self.round_trip_cpu: list[float] = []
        """The process's CPU seconds over each of them (what they cost, whatever the load)."""

    def as_dict(self) -> dict[str, float | None]:
        return {"request_sent_at": self.request_sent_at, "first_delta_at": self.first_delta_at,
                "last_delta_at": self.last_delta_at, "stream_ended_at": self.stream_ended_at}

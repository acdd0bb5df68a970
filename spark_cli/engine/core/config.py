"""Engine settings: the frozen :class:`EngineConfig`, and the ``--fault`` knobs it carries
(``parse_fault`` reads one flag)."""

from __future__ import annotations

import dataclasses
from dataclasses import field

from spark_cli.record import record

MAX_OUTPUT_TOKENS = 128_000
"""The models' most output per response (more is refused; no limit named stops here)."""
BRAIN_THREADS = 4
"""Worker threads for brain work (planning, parsing, token counts): off the event loop."""
DEEP_TPS = 80.0
DEEP_TTFT_MS = 1500.0
FAULT_FORMS = "drop:N, stall:N:MS, malformed:N, 429:P (N tokens, MS milliseconds, 0 <= P <= 1)"


@record
class FaultConfig:
    """Deliberate failures for client tests (all off by default)."""

    drop_after_tokens: int | None = None
    stall_after_tokens: int | None = None
    stall_ms: float = 0.0
    """Pause this long once ``stall_after_tokens`` tokens were sent (then carry on)."""
    malformed_after_tokens: int | None = None
    http_429_probability: float = 0.0
    seed: int = 0


@record
class Pacing:
    """One model's pace: tokens per second per stream and time to first token."""

    tps: float
    ttft_ms: float


@record
class EngineConfig:
    """How one engine serves (checked when made: a bad value raises ``ValueError``)."""

    host: str = "127.0.0.1"
    port: int = 8765
    tps: float = 1500.0
    ttft_ms: float = 40.0
    deep_tps: float = DEEP_TPS
    """The deep brain's pace (``spark-deep``); every other brain keeps ``tps``."""
    deep_ttft_ms: float = DEEP_TTFT_MS
    max_streams: int = 64
    queue: int = 256
    token: str | None = None
    brain: str = "rules"
    frame_ms: float = 10.0
    """Coalescing interval: tokens due in the same frame go in one delta."""
    per_token: bool = False
    """One token per delta, as real providers stream (no coalescing)."""
    max_connection_age_s: float = 3600.0
    """Then ``websocket_connection_limit_reached`` and the socket closes."""
    tpm: int | None = None
    faults: FaultConfig = field(default_factory=FaultConfig)
    slips: float = 0.0
    """The share of the rules brain's edit answers that make a mistake on purpose (0..1)."""
    max_output_tokens: int = MAX_OUTPUT_TOKENS
    ws_max_size: int = 16 * 1024 * 1024
    """Largest accepted WebSocket message in bytes; bigger ones close with 1009."""
    http_max_body: int = 16 * 1024 * 1024
    """Largest accepted HTTP request body in bytes; bigger ones get 413."""

    def __post_init__(self) -> None:
        if self.tps <= 0 or self.deep_tps <= 0:
            raise ValueError("tps and deep_tps must be > 0")
        if self.ttft_ms < 0 or self.deep_ttft_ms < 0 or self.frame_ms < 0:
            raise ValueError("ttft_ms, deep_ttft_ms and frame_ms must be >= 0")
        if self.max_streams < 1 or self.queue < 0:
            raise ValueError("max_streams must be >= 1 and queue >= 0")
        if self.tpm is not None and self.tpm < 1:
            raise ValueError("tpm must be >= 1")
        if self.max_connection_age_s <= 0:
            raise ValueError("max_connection_age_s must be > 0")
        if not 1 <= self.max_output_tokens <= 10**12:
            raise ValueError("max_output_tokens must be 1..10**12")
        if not 0.0 <= self.slips <= 1.0:
            raise ValueError(f"slips must be a share 0..1, not {self.slips:g}")

    def pacing(self, pace: str) -> Pacing:
        """The pace of a brain whose ``pace`` attribute is ``pace`` ("deep" or "fast")."""
        if pace == "deep":
            return Pacing(self.deep_tps, self.deep_ttft_ms)
        return Pacing(self.tps, self.ttft_ms)


def _count(text: str, spec: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(
            f"bad --fault {spec!r}: {text!r} is not a whole number; use {FAULT_FORMS}"
        ) from None
    if value < 0:
        raise ValueError(f"bad --fault {spec!r}: counts must be >= 0")
    return value


def parse_fault(spec: str, faults: FaultConfig | None = None) -> FaultConfig:
    """``faults`` with the one knob ``spec`` sets (``drop:200``, ``stall:100:3000``, ...)."""
    faults = faults or FaultConfig()
    kind, _, rest = spec.strip().partition(":")
    args = rest.split(":") if rest else []
    if kind == "drop" and len(args) == 1:
        return dataclasses.replace(faults, drop_after_tokens=_count(args[0], spec))
    if kind == "malformed" and len(args) == 1:
        return dataclasses.replace(faults, malformed_after_tokens=_count(args[0], spec))
    if kind == "stall" and len(args) == 2:
        return dataclasses.replace(
            faults, stall_after_tokens=_count(args[0], spec), stall_ms=float(_count(args[1], spec))
        )
    if kind == "429" and len(args) in (1, 2):
        try:
            probability = float(args[0])
        except ValueError:
            probability = -1.0
        if not 0.0 <= probability <= 1.0:
            raise ValueError(
                f"bad --fault {spec!r}: the probability must be 0..1; use {FAULT_FORMS}"
            )
        seed = _count(args[1], spec) if len(args) == 2 else faults.seed
        return dataclasses.replace(faults, http_429_probability=probability, seed=seed)
    raise ValueError(f"bad --fault {spec!r}: use {FAULT_FORMS}")

"""The tokens a turn used and what they cost: summed per response, added up per session.

The server's figures where it reported them, else spark's count; ``cost_usd`` is None
(never 0) when the model's price is unknown.
"""

from __future__ import annotations

from collections.abc import Iterable

from spark_cli.record import record
from spark_cli.session.config.pricing import Price


@record
class Usage:
    """One turn's (or a session's) tokens and cost on one model."""

    model: str
    input_tokens: int = 0
    cached_input_tokens: int = 0
    output_tokens: int = 0
    requests: int = 0
    """Model requests (a tool loop makes one per round)."""
    counted: bool = False
    """Some figure was counted by spark: the server reported none for a response."""
    cost_usd: float | None = None

    def plus(self, other: Usage) -> Usage:
        """Both summed (the cost unknown if either is)."""
        cost = (None if self.cost_usd is None or other.cost_usd is None
                else self.cost_usd + other.cost_usd)
        return Usage(self.model if self.model == other.model else "(several)",
                     self.input_tokens + other.input_tokens,
                     self.cached_input_tokens + other.cached_input_tokens,
                     self.output_tokens + other.output_tokens,
                     self.requests + other.requests, self.counted or other.counted, cost)


class UsageMeter:
    """Adds up a turn's responses as they end (once per response: nothing per token)."""

    __slots__ = ("cached", "counted", "extra", "input", "model", "output", "price", "requests")

    def __init__(self, model: str, price: Price | None) -> None:
        self.model, self.price = model, price
        self.input = self.cached = self.output = self.requests = 0
        self.counted = False
        self.extra: Usage | None = None
        """What the turn spent on other models' requests (its compactions), priced apart."""

    def add(self, usage: Usage) -> None:
        """A request made for the turn on its own price (a compaction)."""
        self.extra = usage if self.extra is None else self.extra.plus(usage)

    def reported(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> None:
        self.input += input_tokens
        self.cached += cached_tokens
        self.output += output_tokens

    def guessed(self, input_tokens: int, output_tokens: int) -> None:
        """A response the server reported no usage for: spark's counts."""
        self.reported(input_tokens, 0, output_tokens)
        self.counted = True

    def usage(self) -> Usage:
        price = self.price
        own = Usage(self.model, self.input, self.cached, self.output, self.requests,
                    self.counted, None if price is None
                    else price.cost(self.input, self.cached, self.output))
        return own if self.extra is None else own.plus(self.extra)


def total(usages: Iterable[Usage]) -> Usage | None:
    """The sum of ``usages`` (None for none)."""
    out: Usage | None = None
    for usage in usages:
        out = usage if out is None else out.plus(usage)
    return out


def tokens_line(usage: Usage) -> str:
    """``12,345 in (8,000 cached) · 678 out · $0.0123`` (``cost unknown`` without a price)."""
    cached = f" ({usage.cached_input_tokens:,} cached)" if usage.cached_input_tokens else ""
    counted = " (counted)" if usage.counted else ""
    cost = "cost unknown" if usage.cost_usd is None else f"${usage.cost_usd:.4f}"
    return (f"{usage.input_tokens:,} in{cached} · {usage.output_tokens:,} out{counted} · "
            f"{cost}")

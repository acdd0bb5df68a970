"""What a model costs: ``[pricing."MODEL"]`` tables (USD per million tokens) over built-in rows.

A built-in row exists only where the provider publishes a price (docs/providers.md); any
other model's price is unknown (None), never 0; the bundled engine costs 0.
"""

from __future__ import annotations

from collections.abc import Mapping

from spark_cli.record import record

KEYS = ("input", "cached_input", "output")


@record
class Price:
    """USD per million tokens: input read fresh, input read from the prompt cache, output."""

    input: float
    cached_input: float
    output: float

    def cost(self, input_tokens: int, cached_tokens: int, output_tokens: int) -> float:
        """USD for ``input_tokens`` (the cached ones included), ``output_tokens``."""
        fresh = max(0, input_tokens - cached_tokens)
        return (fresh * self.input + cached_tokens * self.cached_input
                + output_tokens * self.output) / 1e6


BUILT_IN: dict[str, Price] = {  # OpenAI's standard tier: https://openai.com/api/pricing/
    "gpt-5.5": Price(5.0, 0.5, 30.0),
    "gpt-5.4": Price(2.5, 0.25, 15.0),
    "gpt-5.4-mini": Price(0.75, 0.075, 4.5),
    "gpt-5.4-nano": Price(0.2, 0.02, 1.25),
    "gpt-5": Price(1.25, 0.125, 10.0),
    "gpt-5-codex": Price(1.25, 0.125, 10.0),
    "gpt-5-mini": Price(0.25, 0.025, 2.0),
    "gpt-5-nano": Price(0.05, 0.005, 0.4),
    "gpt-4.1": Price(2.0, 0.5, 8.0),
    "gpt-4.1-mini": Price(0.4, 0.1, 1.6),
    "gpt-4.1-nano": Price(0.1, 0.025, 0.4),
}
FREE = Price(0.0, 0.0, 0.0)


class PricingError(ValueError):
    """A bad ``[pricing]`` table (names the file, the model and the key)."""


def check_pricing(where: str, table: object) -> dict[str, Price]:
    """A config file's ``[pricing]`` table, checked: model -> Price."""
    if not isinstance(table, dict):
        raise PricingError(f'{where}: \'pricing\' must be a table of [pricing."MODEL"]')
    prices: dict[str, Price] = {}
    for model, row in table.items():
        here = f'{where}: [pricing."{model}"]'
        if not isinstance(row, dict):
            raise PricingError(f"{here} must be a table (input, cached_input, output)")
        unknown = set(row) - set(KEYS)
        if unknown:
            raise PricingError(f"{here}: unknown key '{sorted(unknown)[0]}' "
                               f"(known: {', '.join(KEYS)})")
        for key in ("input", "output"):
            if key not in row:
                raise PricingError(f"{here}: '{key}' is missing (USD per million tokens)")
        for key, value in row.items():
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise PricingError(f"{here}: '{key}' must be a number >= 0 (USD per million "
                                   f"tokens), not {value!r}")
        cached = row["cached_input"] if "cached_input" in row else row["input"]
        prices[model] = Price(float(row["input"]), float(cached), float(row["output"]))
    return prices


def price_of(model: str, configured: Mapping[str, Price], *, bundled: bool) -> Price | None:
    """The model's price: configured, else the bundled engine's 0, else built in; None: unknown."""
    return configured.get(model) or (FREE if bundled else BUILT_IN.get(model))

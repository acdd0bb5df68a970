"""What this session used and cost: the HUD's total and ``/cost`` (per turn, per model, the
deep track's tasks included). Unknown prices stay unknown in every total."""

from __future__ import annotations

from collections.abc import Callable

from spark_cli.session.spend.usage import Usage, tokens_line, total


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


class UsageLedger:
    """The fast track's turns as they end; ``deep`` gives the deep tasks' (number, usage)."""

    def __init__(self) -> None:
        self.turns: list[tuple[str, Usage]] = []
        self.deep: Callable[[], list[tuple[int, Usage]]] = list
        self._count = 0

    def add(self, usage: Usage | None, label: str = "") -> None:
        """A turn's usage (``turn N``), or another request's under ``label`` (``/compact``)."""
        if usage is not None and usage.requests:
            if not label:
                self._count += 1
            self.turns.append((label or f"turn {self._count}", usage))

    def everything(self) -> list[tuple[str, Usage]]:
        """Every entry with its label: ``turn 3``, ``/compact``, ``deep #1``."""
        return self.turns + [(f"deep #{n}", u) for n, u in self.deep()]

    def hud(self) -> str:
        """The HUD's part: ``12.3k tok · $0.0123`` (``cost ?`` without a price)."""
        spent = total(u for _, u in self.everything())
        if spent is None:
            return ""
        cost = "cost ?" if spent.cost_usd is None else f"${spent.cost_usd:.4f}"
        return f"{_k(spent.input_tokens + spent.output_tokens)} tok · {cost}"

    def lines(self) -> list[str]:
        """``/cost``: a line per turn, per model, and the session's total."""
        entries = self.everything()
        if not entries:
            return ["nothing used yet in this session"]
        lines = [f"{label} · {u.model} · {tokens_line(u)}" for label, u in entries]
        models: dict[str, list[Usage]] = {}
        for _, usage in entries:
            models.setdefault(usage.model, []).append(usage)
        for model, usages in models.items():
            summed = total(usages)
            assert summed is not None
            lines.append(f"{model}: {len(usages)} turn(s), {summed.requests} request(s) · "
                         f"{tokens_line(summed)}")
        everything = total(u for _, u in entries)
        assert everything is not None
        lines.append(f"session total · {tokens_line(everything)}")
        return lines

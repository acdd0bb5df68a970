"""The best-of judge: evidence in a fixed order, no model (pure).

A candidate passes when every edit applied with no refused hunk, every touched file
parses (tree-sitter) and the check passed (when one was asked for). Among those the
smallest diff in lines changed wins, then the first finished. A failing candidate
ranks by the same order, so "the best failing one" is well defined too.
"""

from __future__ import annotations

from collections.abc import Sequence

from spark_cli.record import record


@record
class Verdicts:
    """What the judge found for one finished candidate."""

    applied: bool
    """Every edit applied, no refused hunk (an answer with no edit: False)."""
    parses: bool
    check: bool | None
    """The check passed; None: no check was asked for."""
    diff_lines: int
    """Lines changed (added + removed) against the start."""
    order: int
    """1 for the first candidate whose answer ended, 2 for the next, ..."""
    why: str = ""
    """The first failing verdict, in words (empty when it passes)."""

    @property
    def passed(self) -> bool:
        return self.applied and self.parses and self.check is not False

    def rank(self) -> tuple[bool, bool, bool, int, int]:
        """Smaller is better: the judge's order as one sort key."""
        return (not self.applied, not self.parses, self.check is False, self.diff_lines,
                self.order)


def choose(finished: Sequence[tuple[int, Verdicts]]) -> tuple[int, str] | None:
    """(candidate, reason) of the winner among ``finished``; None when none passes."""
    passing = sorted((v.rank(), k, v) for k, v in finished if v.passed)
    if not passing:
        return None
    _, number, best = passing[0]
    parts = ["every edit applied", "every file parses"]
    if best.check is not None:
        parts.append("the check passed")
    rivals = [v for _, _, v in passing[1:]]
    if not rivals:
        parts.append("the only candidate that passes")
    elif all(v.diff_lines > best.diff_lines for v in rivals):
        parts.append(f"the smallest diff ({best.diff_lines} lines) of {len(passing)} passing")
    else:
        parts.append(f"the first finished of those with a {best.diff_lines}-line diff")
    return number, "; ".join(parts)


def best_failing(finished: Sequence[tuple[int, Verdicts]]) -> int | None:
    """The candidate that came nearest to passing (the same order), for the report."""
    ranked = sorted((v.rank(), k) for k, v in finished)
    return ranked[0][1] if ranked else None


def can_beat(best: Verdicts, *, finished: Verdicts | None = None,
             live_diff: int | None = None) -> bool:
    """May a candidate not yet judged still beat ``best`` (which passes)? A finished one
    being checked: when it ranks before ``best`` once it passes too; one still streaming
    finishes later, so only with a smaller diff than it has changed so far."""
    if finished is not None:
        return finished.rank() < best.rank() and finished.applied and finished.parses
    return live_diff is not None and live_diff < best.diff_lines

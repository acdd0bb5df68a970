"""The best-of judge, pure: every edit applied, every touched file parses, the check passed,
the smallest diff, then the deep model's pick (``--judge deep``) or the first finished."""

from __future__ import annotations

from collections.abc import Sequence

from spark_cli.record import record

Pick = tuple[int | None, str]
"""The deep tiebreak's answer: (its candidate, its one line) or (None, why it failed)."""


@record
class Verdicts:
    """What the judge found for one finished candidate."""

    applied: bool
    """Every edit applied, no refused hunk (an answer with no edit: False)."""
    parses: bool
    check: bool | None
    """None: no check was asked for."""
    diff_lines: int
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


def tied(finished: Sequence[tuple[int, Verdicts]]) -> list[int]:
    """The passing candidates equal on every verdict but the finish order, first finished
    first: the deep tiebreak's choice (one or none: nothing to break)."""
    passing = sorted((v.rank(), k) for k, v in finished if v.passed)
    return [k for rank, k in passing if rank[:4] == passing[0][0][:4]] if passing else []


def choose(finished: Sequence[tuple[int, Verdicts]],
           pick: Pick | None = None) -> tuple[int, str] | None:
    """(candidate, reason) of the winner among ``finished``; None when none passes."""
    passing = sorted((v.rank(), k, v) for k, v in finished if v.passed)
    if not passing:
        return None
    _, number, best = passing[0]
    parts = ["every edit applied", "every file parses"]
    if best.check is not None:
        parts.append("the check passed")
    rivals = [v for _, _, v in passing[1:]]
    same = f"of those with a {best.diff_lines}-line diff"
    if not rivals:
        parts.append("the only candidate that passes")
    elif all(v.diff_lines > best.diff_lines for v in rivals):
        parts.append(f"the smallest diff ({best.diff_lines} lines) of {len(passing)} passing")
    elif pick is not None and pick[0] in tied(finished):
        number = pick[0]
        parts.append(f"the deep model's pick {same}: {pick[1]}")
    else:
        parts.append(f"the first finished {same}" + (
            f" (the deep tiebreak failed: {pick[1]})" if pick is not None else ""))
    return number, "; ".join(parts)


def best_failing(finished: Sequence[tuple[int, Verdicts]]) -> int | None:
    """The candidate that came nearest to passing (the same order), for the report."""
    ranked = sorted((v.rank(), k) for k, v in finished)
    return ranked[0][1] if ranked else None


def can_beat(best: Verdicts, *, finished: Verdicts | None = None,
             live_diff: int | None = None, ties: bool = False) -> bool:
    """May a candidate being checked (``finished``) or still streaming (``live_diff`` so far)
    beat ``best``? ``ties``: a tie may still win (the deep tiebreak)."""
    if finished is not None:
        ahead = finished.rank()[:4] <= best.rank()[:4] if ties else finished.rank() < best.rank()
        return ahead and finished.applied and finished.parses
    return live_diff is not None and (live_diff <= best.diff_lines if ties
                                      else live_diff < best.diff_lines)

"""The judge's order, value in, value out: applied, parses, check, smallest diff, first."""

from __future__ import annotations

from spark_cli.session.race.judge import Verdicts, best_failing, can_beat, choose, tied


def v(applied: bool = True, parses: bool = True, check: bool | None = None, diff: int = 4,
      order: int = 1) -> Verdicts:
    return Verdicts(applied, parses, check, diff, order)


def test_each_verdict_outranks_the_next() -> None:
    # a refused hunk loses to anything that applied, even a failing parse
    assert choose([(1, v(applied=False, diff=1, order=1)), (2, v(diff=9, order=2))])[0] == 2
    assert choose([(1, v(parses=False, diff=1)), (2, v(diff=9, order=2))])[0] == 2
    assert choose([(1, v(check=False, diff=1)), (2, v(check=True, diff=9, order=2))])[0] == 2
    assert choose([(1, v(diff=9, order=1)), (2, v(diff=3, order=2))]) == (
        2, "every edit applied; every file parses; the smallest diff (3 lines) of 2 passing")
    number, reason = choose([(1, v(order=2)), (2, v(order=1))]) or (0, "")
    assert number == 2 and "first finished" in reason


def test_none_passing_has_no_winner_but_a_nearest() -> None:
    finished = [(1, v(applied=False)), (2, v(check=False, diff=7)), (3, v(parses=False))]
    assert choose(finished) is None
    assert best_failing(finished) == 2


def test_only_a_candidate_that_could_still_win_keeps_running() -> None:
    best = v(diff=4, order=1)
    assert can_beat(best, live_diff=2)
    assert not can_beat(best, live_diff=4)  # a later finish loses a tie
    assert can_beat(best, finished=v(diff=2, order=2))  # being checked, smaller diff
    assert not can_beat(best, finished=v(diff=6, order=2))
    assert not can_beat(best, finished=v(parses=False, diff=1, order=2))


def test_a_deep_pick_breaks_only_a_tie_and_a_failed_one_falls_back() -> None:
    equal = [(1, v(diff=2, order=1)), (2, v(diff=2, order=2)), (3, v(diff=5, order=3))]
    assert tied(equal) == [1, 2]
    number, reason = choose(equal, (2, "Candidate 2: tidier")) or (0, "")
    assert number == 2 and reason.endswith("the deep model's pick of those with a 2-line "
                                           "diff: Candidate 2: tidier")
    assert choose(equal, (3, "Candidate 3"))[0] == 1  # not tied: the pick is not taken
    number, reason = choose(equal, (None, "connection refused")) or (0, "")
    assert number == 1 and reason.endswith("(the deep tiebreak failed: connection refused)")
    smaller = [(1, v(diff=2, order=2)), (2, v(diff=3, order=1))]
    assert choose(smaller, (2, "Candidate 2"))[0] == 1  # the evidence decided: no tiebreak


def test_with_a_deep_tiebreak_a_tie_may_still_win() -> None:
    best = v(diff=4, order=1)
    assert can_beat(best, live_diff=4, ties=True) and not can_beat(best, live_diff=5, ties=True)
    assert can_beat(best, finished=v(diff=4, order=2), ties=True)
    assert not can_beat(best, finished=v(diff=5, order=2), ties=True)

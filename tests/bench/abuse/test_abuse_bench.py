"""`spark bench abuse`: the reply check, the table's verdicts, a tiny real run that holds.

A bad frame that started a generation would fail the real run: its first reply would be
``response.created``, not an error."""

from __future__ import annotations

from spark_cli.bench.abuse import abuse_bench as abuse
from spark_cli.bench.abuse.abuse_frames import http_cases, ws_reply_in_shape
from spark_cli.bench.abuse.abuse_runs import Tally


def test_reply_shape_accepts_errors_and_steer_failures_only() -> None:
    error = {"type": "error", "status": 400, "sequence_number": 0,
             "error": {"type": "invalid_request_error", "code": "invalid_json", "message": "m"}}
    assert ws_reply_in_shape(error)
    assert not ws_reply_in_shape({**error, "status": "400"})
    assert not ws_reply_in_shape({"type": "response.completed"})
    assert ws_reply_in_shape({"type": "response.steer.failed", "steer": {},
                              "error": {"type": "t", "code": "c", "message": "m"}})


def _figures(answered: int, tracebacks: int, rss_after: int, fds_after: int) -> dict:
    tally = Tally(tried=10, answered=answered)
    return {"tallies": {"frames": tally}, "tracebacks": tracebacks, "alive_after": True,
            "before": {"rss": 100, "fds": 7}, "after": {"rss": rss_after, "fds": fds_after},
            "kinds": 3, "seconds": 1.0}


def test_table_marks_each_target() -> None:
    good = abuse.table(_figures(10, 0, 109, 7))
    assert "missed" not in good
    for bad in (_figures(9, 0, 100, 7), _figures(10, 1, 100, 7), _figures(10, 0, 111, 7),
                _figures(10, 0, 100, 8)):
        assert abuse.table(bad).count("missed") == 1


def test_a_tiny_real_run_is_all_answered_with_no_tracebacks() -> None:
    figures = abuse.measure(messages=len(http_cases()), disconnects=16, connections=12,
                            body_rounds=1, timeout_s=120)
    for name, tally in figures["tallies"].items():
        assert tally.tried > 0, name
        assert tally.answered == tally.tried, (name, tally.misses)
    assert figures["tracebacks"] == 0
    assert figures["alive_after"]
    assert figures["after"]["fds"] <= figures["before"]["fds"]

"""hunk_loop runs the real applier: a refused edit would end it with a message."""

from __future__ import annotations

from spark_cli.bench.edits import hunk_loop


def test_a_few_hunks_apply() -> None:
    assert hunk_loop.run(3) == 4  # the warm-up and three timed hunks

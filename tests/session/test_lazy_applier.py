"""The turn's Applier, made once the request left; the sent files parsed ahead of the edits."""

from __future__ import annotations

from pathlib import Path

from spark_cli.edits.lang import syntax
from spark_cli.session.lazy_applier import PRIME_BYTES, LazyApplier

PY = "def total(items):\n    return sum(items)\n"


def test_prime_parses_the_sent_files_once_within_its_budget(tmp_path: Path) -> None:
    big = "x = 1\n" * (PRIME_BYTES // 6 + 1)
    seen = {"app.py": PY, "big.py": big, "notes.txt": "plain\n", "other.py": "y = 2\n"}
    lazy = LazyApplier(tmp_path, seen, "turn", allow_syntax_errors=False, dry_run=False,
                       sent=["app.py", "big.py", "notes.txt", "gone.py"])
    lazy.prime()
    assert ("python", PY) in syntax._trees
    assert ("python", big) not in syntax._trees  # over the budget: parsed at its first edit
    assert ("python", "y = 2\n") not in syntax._trees  # not sent this turn
    syntax._trees.pop(("python", PY))
    lazy.prime()  # once per turn
    assert ("python", PY) not in syntax._trees
    assert lazy.outcomes == [] and lazy.seen is None  # priming makes no Applier

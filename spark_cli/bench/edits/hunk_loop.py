"""``python -m spark_cli.bench.edits.hunk_loop N``: N dry-run hunks, for instruction counts.

Wall clock on a shared machine is noisy; callgrind's instruction count is not.
This applies N one-hunk SEARCH/REPLACE edits (each to a different function of a
5,000-line Python file, as ``spark bench edits`` does) through the real applier
in dry-run mode, after one warm-up edit, and prints nothing. The per-hunk cost is
``(count at N=21 - count at N=1) / 20``::

    valgrind --tool=callgrind python -m spark_cli.bench.edits.hunk_loop 21
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from spark_cli.bench.edits.edits import python_source
from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.blocks import FileEdit, Hunk

FUNCTIONS = 1000  # five lines each


def run(hunks: int) -> int:
    """Apply ``hunks`` edits (after the warm-up); how many applied, warm-up included."""
    applied = 0
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "big.py").write_text(python_source(FUNCTIONS))
        applier = Applier(root, dry_run=True, record_undo=False)
        applier.begin_batch("hunk_loop")
        for run in range(hunks + 1):  # run 0 warms up (imports, the first full parse)
            k = (run * 37) % FUNCTIONS
            search = f'def func_{k:04d}(x):\n    """Return x plus {k}."""\n    y = x + 0\n'
            edit = FileEdit("update", "big.py", (Hunk(search, search.replace("+ 0", "+ 1")),),
                            "search_replace")
            outcome = applier.apply(edit)
            if not outcome.ok:
                raise SystemExit(f"hunk_loop: edit refused: {outcome.message}")
            applied += 1
    return applied


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 20)

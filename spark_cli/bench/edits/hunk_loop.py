"""``python -m spark_cli.bench.edits.hunk_loop N``: N dry-run hunks, for instruction counts.

Wall clock on a shared machine is noisy; callgrind's count is not. N one-hunk edits as
`spark bench edits` makes them, after a warm-up; per hunk: (count at N=21 - at N=1) / 20.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from spark_cli.bench.edits.edits import apply_hunks

FUNCTIONS = 1000  # five lines each


def run(hunks: int) -> int:
    """Apply ``hunks`` edits (after the warm-up); how many applied, warm-up included."""
    with tempfile.TemporaryDirectory() as tmp:
        return len(apply_hunks(Path(tmp), FUNCTIONS, hunks)) + 1


if __name__ == "__main__":
    run(int(sys.argv[1]) if len(sys.argv) > 1 else 20)

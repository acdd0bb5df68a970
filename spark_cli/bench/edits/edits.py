"""`spark bench edits`: one hunk located, applied and checked in a 5,000-line Python file, in
memory (a dry run), written (fsynced) and with the undo journal, each run to another function.
``python -m spark_cli.bench.edits.edits N``: N dry-run hunks, for callgrind's counts.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import typer

from spark_cli.bench.figures import bench_command, median_p95, met
from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.session.config.state_dir import undo_dir

TARGET_MS = 5.0
SECTION = "## Edits"


def python_source(functions: int) -> str:
    return "".join(f'def func_{n:04d}(x):\n    """Return x plus {n}."""\n'
                   f"    y = x + 0\n    return y + {n}\n\n" for n in range(functions))


def apply_hunks(workdir: Path, functions: int, runs: int, mode: str = "check") -> list[float]:
    """Milliseconds of ``runs`` one-hunk edits in ``mode``, after a warm-up (the first parse)."""
    path = workdir / "big_module.py"
    path.write_text(python_source(functions))
    values = [0] * functions
    times: list[float] = []
    applier = Applier(workdir, dry_run=mode == "check",
                      undo_dir=undo_dir(workdir) if mode == "journal" else None)
    applier.begin_batch("bench")
    for run in range(runs + 1):
        k = (run * 37) % functions
        old = values[k]
        search = f'def func_{k:04d}(x):\n    """Return x plus {k}."""\n    y = x + {old}\n'
        replace = search.replace(f"y = x + {old}", f"y = x + {old + 1}")
        edit = FileEdit("update", path.name, (Hunk(search, replace),), "search_replace")
        start = time.perf_counter()
        outcome = applier.apply(edit)
        elapsed = (time.perf_counter() - start) * 1000
        if not outcome.ok:
            raise RuntimeError(f"benchmark edit refused: {outcome.message}")
        if mode != "check":
            values[k] += 1
        if run:
            times.append(elapsed)
    applier.end_batch()
    return times


def run_benchmark(runs: int, lines: int, workdir: Path) -> dict[str, float | int]:
    """Median and p95 (ms) of each mode of :func:`apply_hunks`."""
    functions = max(1, lines // 5)
    results = {mode: apply_hunks(workdir, functions, runs, mode)
               for mode in ("check", "write", "journal")}
    figures: dict[str, float | int] = {"lines": functions * 5, "runs": runs}
    for mode, times in results.items():
        figures[f"{mode}_median"], figures[f"{mode}_p95"] = median_p95(times)
    return figures


def table(f: dict[str, float | int]) -> str:
    return (
        f"{f['runs']} runs on a {f['lines']:,}-line Python file, each on another function.\n\n"
        "| path | median | p95 | target |\n|---|---|---|---|\n"
        f"| in memory (locate, splice, tree-sitter re-check, encode) | "
        f"{f['check_median']:.2f} ms | {f['check_p95']:.2f} ms | ≤ {TARGET_MS:g} ms: "
        f"{met(f['check_p95'] <= TARGET_MS)} |\n"
        f"| written (plus temp file, fsync, rename, dir fsync) | "
        f"{f['write_median']:.2f} ms | {f['write_p95']:.2f} ms | |\n"
        f"| written and recorded for undo (before bytes + batch record, both fsynced) | "
        f"{f['journal_median']:.2f} ms | {f['journal_p95']:.2f} ms | |")


def bench_edits(
    runs: int = typer.Option(200, "--runs", min=1, help="Timed runs per path."),
    lines: int = typer.Option(5000, "--lines", min=5, help="Size of the Python file."),
) -> tuple[str, str]:
    """Time locate + apply + re-validate of one hunk in a 5,000-line file."""
    with tempfile.TemporaryDirectory(prefix="spark-bench-edits-") as tmp:
        figures = run_benchmark(runs, lines, Path(tmp))
    return table(figures), f" --runs {runs} --lines {lines}"


register = bench_command("edits", SECTION, bench_edits)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        apply_hunks(Path(tmp), 1000, int(sys.argv[1]) if len(sys.argv) > 1 else 20)

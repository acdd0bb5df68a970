"""`spark bench ...`: one sub-command per benchmark module in spark_cli.bench."""

from __future__ import annotations

import importlib

import typer

# Benchmark modules under spark_cli.bench, each with ``register(bench_app: typer.Typer)``.
BENCH_MODULES = ("engine", "edits", "transport", "oneshot", "abuse", "context", "tui", "deep",
                 "soak", "provider_bench", "stream", "tool_loop")


def register(app: typer.Typer) -> None:
    bench_app = typer.Typer(help="Measure spark: results go in docs/benchmarks.md.")
    for name in BENCH_MODULES:
        importlib.import_module(f"spark_cli.bench.{name}").register(bench_app)
    app.add_typer(bench_app, name="bench")

"""`spark bench ...`: one sub-command per benchmark module in spark_cli.bench, imported only
when the group is used, so `spark --help` does not pay for them."""

from __future__ import annotations

import importlib
from collections.abc import MutableMapping
from typing import Any

import typer
from typer.core import TyperGroup

# Benchmark modules under spark_cli.bench, each with ``register(bench_app: typer.Typer)``.
BENCH_MODULES = ("engine.engine", "edits.edits", "transport", "oneshot.oneshot",
                 "abuse.abuse_bench", "context", "tui.tui_bench", "deep", "tui.soak",
                 "provider.provider", "stream.stream", "tool_loop_bench", "mcp_start", "acp_bench",
                 "session_bench", "best_of_bench")


class BenchGroup(TyperGroup):
    """The `bench` group: its commands are built from :data:`BENCH_MODULES` when first read."""

    _built: MutableMapping[str, Any] | None = None

    @property
    def commands(self) -> MutableMapping[str, Any]:
        if self._built is None:
            bench_app = typer.Typer(rich_markup_mode=None)
            for name in BENCH_MODULES:
                importlib.import_module(f"spark_cli.bench.{name}").register(bench_app)
            self._built = typer.main.get_group(bench_app).commands
        return self._built

    @commands.setter
    def commands(self, given: MutableMapping[str, Any]) -> None:
        self._built = dict(given) or None


def register(app: typer.Typer) -> None:
    app.add_typer(typer.Typer(cls=BenchGroup), name="bench",
                  help="Measure spark: results go in docs/benchmarks.md.")

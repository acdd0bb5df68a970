"""`spark bench tui`: the TUI's speed targets, headless and in a pty."""

from spark_cli.bench.tui.tui_bench import register

__all__ = ["register"]

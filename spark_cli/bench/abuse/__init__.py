"""`spark bench abuse`: malformed input, disconnects and load against a fresh engine."""

from spark_cli.bench.abuse.abuse_bench import register

__all__ = ["register"]

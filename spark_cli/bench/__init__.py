"""`spark bench ...`: measured figures for docs/benchmarks.md (wires concrete parts, like cli)."""

"""Plain values of the edit engine: parsed blocks, outcomes, refusals, verdicts."""

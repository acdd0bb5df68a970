"""`spark acp`: the Agent Client Protocol front end (docs/acp.md); imported by `spark acp` only."""

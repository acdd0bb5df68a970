"""`spark bench engine`: the bundled engine's pacing and rate."""

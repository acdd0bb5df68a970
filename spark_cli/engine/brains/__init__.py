"""What the bundled engine answers: the `rules`, `script:PATH` and `lorem` brains."""

"""What a run may spend and what it spent: :mod:`.limits` (``--max-turns``, ``--timeout``),
:mod:`.usage` (tokens and cost per turn, counted where a server reports none)."""

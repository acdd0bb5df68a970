"""`spark bench edits`: one hunk located, applied and checked."""

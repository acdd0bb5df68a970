"""What the session keeps and does in the repo beside turns: saved state, undo, diffs."""

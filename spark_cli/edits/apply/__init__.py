"""Applying edits: the Applier (one answer, one undo batch), repeats, diffs."""

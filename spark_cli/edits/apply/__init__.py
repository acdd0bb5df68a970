"""Applying edits: the Applier (one answer, one undo batch), repeated blocks, diffs of what
changed.
"""

"""Where a hunk goes: the locate ladder and its matchers, re-indentation, elision, anchors
checks, conflicts with the user's changes, placement.
"""

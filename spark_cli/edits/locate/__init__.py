"""Where a hunk goes: the locate ladder, its matchers, re-indentation and placement."""

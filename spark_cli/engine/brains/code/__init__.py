"""What the brains know about code: syntax trees, lookups, command results, edit text."""

"""`spark bench abuse`: malformed input, disconnects and load against a fresh engine."""

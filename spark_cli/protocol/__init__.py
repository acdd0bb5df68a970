"""Wire types, codecs and framing: pure data, no I/O, imports nothing of spark."""

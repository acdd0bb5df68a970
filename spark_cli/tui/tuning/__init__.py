"""Textual tuned for a screen that streams 1000+ tokens/s: a fast lone Esc, a screen rate
that does not hold a keystroke for a frame, styled rows kept while they stay on screen, and
a transcript that grows without a screen layout.

Each stays because the ledger (docs/benchmarks.md) measured it on keystroke latency, and
leans on a Textual detail named in its docstring; its tests compare against Textual's own
behaviour so an upgrade that moves it fails loudly.
"""

"""Textual tuned for a screen that streams 1000+ tokens/s: a fast lone Esc, the screen rate,
styled rows kept while on screen, growth without a layout. Each is kept by a ledger figure
(docs/benchmarks.md) and its tests fail when a Textual upgrade moves what it leans on."""

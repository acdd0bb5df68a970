"""`spark bench oneshot`: a one-shot's launch to request, CPU and exit, beside Codex CLI."""

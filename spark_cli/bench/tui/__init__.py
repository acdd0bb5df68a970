"""`spark bench tui`: the TUI's speed targets, headless and in a pty."""

"""The Textual app (not built yet: `spark` with no command prints help)."""

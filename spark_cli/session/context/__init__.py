"""What travels with a turn besides the ask: the files, the names in the prompt, the repo map
(docs/context.md says what goes in)."""

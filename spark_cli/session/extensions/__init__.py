"""The user's own extensions in the shapes of Claude Code and Codex: prompts, skills, hooks."""

"""The transcript: session events painted per frame, the answer's Markdown, edits and
tool calls as they show, and what a resumed session shows again."""

"""The HTTP SSE channels: Chat Completions and Responses over httpx."""

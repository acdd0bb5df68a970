"""The HTTP SSE channels: Chat Completions and Responses, over h11 (direct) or httpx."""

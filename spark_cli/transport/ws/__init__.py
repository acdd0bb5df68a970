"""The Responses WebSocket channel: connections, chaining, the read machine."""

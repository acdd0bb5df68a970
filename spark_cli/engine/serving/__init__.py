"""The engine's front: its servers, HTTP routes, WebSocket sessions and the conversations
they keep."""

"""The engine's front: uvicorn on one port, the raw ASGI app, HTTP routes, WebSocket sessions,
and the conversations they keep. Imports core, wire and brains; nothing imports it
but the CLI."""

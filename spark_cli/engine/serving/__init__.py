"""The engine's front: uvicorn on one port, the raw ASGI app, HTTP routes, WebSocket sessions,
request intake and connection-local lanes. Imports core, wire and brains; nothing imports it
but the CLI."""

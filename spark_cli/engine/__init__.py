"""The bundled mock wafer-scale engine: a real local Responses WebSocket + HTTP server."""

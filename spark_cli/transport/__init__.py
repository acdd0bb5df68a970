"""Model channels (WebSocket Responses, HTTP SSE) behind one small interface (`base`)."""

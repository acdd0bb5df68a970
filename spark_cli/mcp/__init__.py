"""MCP servers as the model's tools: config, the hub the session holds, the cache (docs/mcp.md)."""

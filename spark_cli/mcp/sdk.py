"""The official MCP SDK as the hub uses it, imported here only, off the event loop by
:func:`spark_cli.mcp.server_link.load_sdk` (it costs ~0.3 s)."""

from __future__ import annotations

import logging

import anyio
import httpx2
import mcp.types as types
from mcp import Client, StdioServerParameters
from mcp.client import Transport
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

__all__ = ["Client", "StdioServerParameters", "Transport", "anyio", "httpx2", "stdio_client",
           "streamable_http_client", "types"]

logging.getLogger("mcp").addHandler(logging.NullHandler())
logging.getLogger("mcp").propagate = False  # never on the TUI's screen

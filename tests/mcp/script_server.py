"""A tiny MCP server for the hub's tests, on the SDK's MCPServer (FastMCP, renamed in mcp 2).

``--slow S`` sleeps before serving (a server slow to start); ``--http PORT`` serves
streamable HTTP on 127.0.0.1 instead of stdio. Its tools: ``echo``, ``env_value`` (a
variable of its environment), ``header`` (a header of the HTTP request), ``exit_now``
(the process exits mid-call), ``hang`` (never answers).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import Context, MCPServer

if "--slow" in sys.argv:
    time.sleep(float(sys.argv[sys.argv.index("--slow") + 1]))

app = MCPServer("script")


@app.tool()
def echo(text: str) -> str:
    """Echo the text back."""
    return text


@app.tool()
def env_value(name: str) -> str:
    """The value of an environment variable of the server."""
    return os.environ.get(name, "(unset)")


@app.tool()
def header(name: str, ctx: Context) -> str:
    """A header of the HTTP request that made this call."""
    return (ctx.headers or {}).get(name.lower(), "(none)")


@app.tool()
def exit_now() -> str:
    """Exit the server process at once."""
    os._exit(3)


@app.tool()
def hang() -> str:
    """Never answer."""
    while True:
        time.sleep(60)


if __name__ == "__main__":
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        app.run("streamable-http", host="127.0.0.1", port=port)
    else:
        app.run()

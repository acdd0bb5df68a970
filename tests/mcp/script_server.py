"""A tiny MCP server for the hub's failure tests, on the SDK's MCPServer (stdio).

``--slow S`` sleeps before serving (a server slow to start). Its tools: ``echo``,
``env_value`` (a variable of its environment), ``exit_now`` (the process exits
mid-call), ``hang`` (never answers).
"""

from __future__ import annotations

import os
import sys
import time

from mcp.server.mcpserver import MCPServer

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
def exit_now() -> str:
    """Exit the server process at once."""
    os._exit(3)


@app.tool()
def hang() -> str:
    """Never answer."""
    while True:
        time.sleep(60)


if __name__ == "__main__":
    app.run()

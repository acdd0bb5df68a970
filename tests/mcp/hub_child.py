"""A process holding a hub as spark does, for the signal tests: it starts the servers,
prints ``ready`` once every server answered, and stops them on SIGTERM (the handler a front
end installs) or Ctrl+C (``asyncio.run``'s KeyboardInterrupt), then exits.

Usage: ``python hub_child.py CACHE_DIR TIME_SERVER SCRIPT_SERVER``.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

from spark_cli.mcp.hub import McpHub
from spark_cli.mcp.mcp_config import McpServerConfig


async def main(cache: str, time_server: str, script: str) -> None:
    hub = McpHub([McpServerConfig("time", "t", command=time_server),
                  McpServerConfig("script", "t", command=sys.executable, args=(script,)),
                  McpServerConfig("slow", "t", command=sys.executable,
                                  args=(script, "--slow", "60"), startup_timeout_s=120)],
                 Path.cwd(), cache=Path(cache))
    task = asyncio.current_task()
    assert task is not None
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
    hub.start()
    try:
        assert (await hub.call("mcp__time__get_current_time", '{"timezone": "UTC"}')).ok
        assert (await hub.call("mcp__script__echo", '{"text": "x"}')).ok
        print("ready", flush=True)
        await asyncio.Event().wait()
    finally:
        await hub.aclose()


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))

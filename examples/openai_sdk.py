"""The official `openai` SDK streaming from the bundled engine, over WebSocket and HTTP.

Run: `python examples/openai_sdk.py` (or `.venv/bin/python examples/openai_sdk.py`).
It starts the engine in-process on a free loopback port, then:

1. `client.responses.connect()`: one persistent WebSocket, two chained turns;
2. `client.responses.create(stream=True)`: Responses over HTTP SSE;
3. `client.chat.completions.create(stream=True)`: Chat Completions SSE with usage.

Point the same code at a real provider by changing `base_url` and `api_key`.
"""

from __future__ import annotations

import asyncio
import secrets
import sys

from openai import AsyncOpenAI

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.server import run_engine

FILE = 'app.py\n```python\ndef greet(name):\n    print("hi", name)\n```\n'


async def main() -> None:
    token = secrets.token_urlsafe(16)
    async with run_engine(EngineConfig(port=0, token=token, tps=2000, ttft_ms=20)) as engine:
        client = AsyncOpenAI(base_url=engine.url + "/v1", api_key=token)
        print(f"engine at {engine.ws_url}\n")

        print("== WebSocket (client.responses.connect)")
        async with client.responses.connect() as conn:
            await conn.response.create(model="spark-rules", input=FILE + "\nexplain app.py")
            previous = None
            async for event in conn:
                if event.type == "response.output_text.delta":
                    sys.stdout.write(event.delta)
                elif event.type == "response.completed":
                    previous = event.response.id
                    print(f"\n[completed: {event.response.usage.output_tokens} tokens]")
                    break
            await conn.response.create(model="spark-rules", previous_response_id=previous,
                                       input="rename greet to welcome")
            async for event in conn:
                if event.type == "response.output_text.delta":
                    sys.stdout.write(event.delta)
                elif event.type in ("response.completed", "response.incomplete", "error"):
                    print(f"\n[{event.type}]")
                    break

        print("\n== HTTP Responses SSE (client.responses.create(stream=True))")
        stream = await client.responses.create(
            model="spark-rules", input=FILE + "\nremove print calls", stream=True
        )
        async for event in stream:
            if event.type == "response.output_text.delta":
                sys.stdout.write(event.delta)
        print()

        print("\n== HTTP Chat Completions SSE (client.chat.completions.create(stream=True))")
        chat = await client.chat.completions.create(
            model="spark-rules", stream=True, stream_options={"include_usage": True},
            messages=[{"role": "user", "content": FILE + "\nadd a docstring to greet"}],
        )
        async for chunk in chat:
            if chunk.choices and chunk.choices[0].delta.content:
                sys.stdout.write(chunk.choices[0].delta.content)
            if chunk.usage is not None:
                print(f"\n[usage: {chunk.usage.completion_tokens} completion tokens]")
        await client.close()


if __name__ == "__main__":
    asyncio.run(main())

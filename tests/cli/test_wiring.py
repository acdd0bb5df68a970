"""Settings → Channel: the bundled engine in-process, a running engine by URL, bad inputs."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from spark_cli.cli.wiring import WiringError, open_provider_channel
from spark_cli.protocol.channel import ChannelError, Message, TextDelta, TurnFinished, TurnRequest
from spark_cli.protocol.secrets import Secrets
from spark_cli.session.config.settings import ProviderSettings

REQUEST = TurnRequest("spark-test", (Message("user", "hello"),), max_output_tokens=50)


class EchoBrain:
    name = "echo"

    def answer(self, request) -> Iterator[str]:
        yield "you said: " + request.prompt


def provider(**fields) -> ProviderSettings:
    base = {"name": "mock", "kind": "mock", "base_url": None, "api_key": None, "model": "m"}
    base.update(fields)
    return ProviderSettings(**base)


async def _collect(channel) -> tuple[str, TurnFinished]:
    text, finished = [], None
    async with asyncio.timeout(20):
        async for event in channel.stream(REQUEST):
            if isinstance(event, TextDelta):
                text.append(event.text)
            elif isinstance(event, TurnFinished):
                finished = event
    assert finished is not None
    return "".join(text), finished


async def test_mock_with_a_base_url_uses_that_engine(engine_factory):
    engine = await engine_factory(brains=lambda model: EchoBrain(), ttft_ms=0, tps=20000)
    p = provider(base_url=engine.url + "/v1", api_key=engine.token)
    async with open_provider_channel(p) as channel:
        text, finished = await _collect(channel)
    assert text == "you said: hello"
    assert finished.status == "completed"


async def test_mock_without_a_base_url_starts_the_bundled_engine():
    async with open_provider_channel(provider(), idle_timeout=20) as channel:
        text, finished = await _collect(channel)
    assert finished.status in ("completed", "incomplete")
    assert text  # whatever the default brain says, it streamed over the socket


def test_the_bundled_engine_serves_its_websocket_without_uvicorn():
    """spark edit and the TUI start the engine WebSocket-only: no HTTP stack imported."""
    import subprocess
    import sys

    code = ("import asyncio, sys\n"
            "from spark_cli.cli.wiring import open_provider_channel\n"
            "from spark_cli.session.config.settings import ProviderSettings\n"
            "async def main():\n"
            "    p = ProviderSettings(name='mock', kind='mock', base_url=None, api_key=None,"
            " model='m')\n"
            "    async with open_provider_channel(p) as channel:\n"
            "        print(type(channel).__name__)\n"
            "asyncio.run(main())\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('uvicorn', 'h11', 'click')"
            " or m.startswith('spark_cli.engine.serving.http')))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.splitlines()[-1] == "[]", done.stdout


async def test_wrong_token_is_a_provider_failure(engine_factory):
    engine = await engine_factory(brains=lambda model: EchoBrain())
    p = provider(base_url=engine.url + "/v1", api_key="wrong")
    async with open_provider_channel(p) as channel:
        with pytest.raises(ChannelError) as caught:
            await _collect(channel)
    assert caught.value.kind == "auth"
    assert "wrong" not in caught.value.message


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.parametrize("kind", ["mock", "chat_sse", "responses_sse"])
async def test_unreachable_base_url_is_a_connection_error(kind: str):
    p = provider(kind=kind, name=kind, base_url=f"http://127.0.0.1:{_closed_port()}/v1")
    async with open_provider_channel(p, idle_timeout=5, max_retries=0) as channel:
        with pytest.raises(ChannelError) as caught:
            await _collect(channel)
    assert caught.value.kind in ("connection", "timeout")


@pytest.mark.parametrize(
    ("fields", "needle"),
    [
        ({"kind": "chat_sse", "name": "openai-compatible", "base_url": None}, "needs a base URL"),
        ({"kind": "chat_sse", "base_url": "ftp://example.org"}, "not an http(s) URL"),
        ({"kind": "mock", "base_url": "nonsense"}, "not an http(s) or ws(s) URL"),
    ],
)
async def test_bad_settings_are_wiring_errors(fields, needle):
    with pytest.raises(WiringError, match=needle.replace("(", r"\(").replace(")", r"\)")):
        async with open_provider_channel(provider(**fields)):
            pass


async def test_a_key_in_a_bad_base_url_is_masked_in_the_usage_error() -> None:
    key = "sk-hidden-0123456789abcdef"
    p = ProviderSettings("openai-compatible", "chat_sse", f"ftp://host/v1?key={key}", "m",
                         None, None, secrets=Secrets((key,)))
    with pytest.raises(WiringError) as info:
        async with open_provider_channel(p):
            pass
    assert key not in str(info.value) and "key=***" in str(info.value)


@pytest.mark.parametrize(("one_shot", "loaded"), [(False, "True"), (True, "False")])
def test_a_session_warms_the_bundled_brain_a_one_shot_does_not(one_shot, loaded):
    import subprocess
    import sys

    code = ("import asyncio, sys\n"
            "from spark_cli.cli.wiring import open_provider_channel\n"
            "from spark_cli.session.config.settings import ProviderSettings\n"
            "RULES = 'spark_cli.engine.brains.rules.rules_brain'\n"
            "async def main():\n"
            "    p = ProviderSettings(name='mock', kind='mock', base_url=None, api_key=None,"
            " model='m')\n"
            f"    async with open_provider_channel(p, one_shot={one_shot}):\n"
            "        for _ in range(100):\n"
            "            if RULES in sys.modules:\n"
            "                break\n"
            "            await asyncio.sleep(0.05)\n"
            "        print(RULES in sys.modules)\n"
            "asyncio.run(main())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == [loaded], done.stderr

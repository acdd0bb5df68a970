import pytest

from spark_cli.transport.factory import open_channel, websocket_url
from spark_cli.transport.sse.http_chat import ChatCompletionsChannel
from spark_cli.transport.sse.http_responses import ResponsesSSEChannel
from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel


@pytest.mark.parametrize(
    ("base", "ws"),
    [
        ("https://api.openai.com/v1", "wss://api.openai.com/v1/responses"),
        ("https://api.openai.com/v1/", "wss://api.openai.com/v1/responses"),
        ("http://127.0.0.1:8123/v1", "ws://127.0.0.1:8123/v1/responses"),
        ("ws://127.0.0.1:9/v1/responses", "ws://127.0.0.1:9/v1/responses"),
    ],
)
def test_websocket_url_is_derived_from_the_base_url(base: str, ws: str) -> None:
    assert websocket_url(base) == ws


async def test_each_kind_builds_its_channel() -> None:
    ws = open_channel("responses_ws", base_url="http://127.0.0.1:1/v1", api_key="k", idle_timeout=3)
    chat = open_channel("chat_sse", base_url="http://127.0.0.1:1/v1", api_key=None)
    sse = open_channel("responses_sse", base_url="https://api.openai.com/v1", api_key="k")
    assert isinstance(ws, ResponsesWebSocketChannel)
    assert isinstance(chat, ChatCompletionsChannel)
    assert isinstance(sse, ResponsesSSEChannel)
    assert ws.capabilities.steer
    assert not chat.capabilities.steer
    for channel in (ws, chat, sse):
        await channel.aclose()


@pytest.mark.parametrize("base", ["ftp://x/v1", "not a url", ""])
def test_a_bad_base_url_is_refused_clearly(base: str) -> None:
    with pytest.raises(ValueError, match="URL"):
        open_channel("chat_sse", base_url=base, api_key=None)
    with pytest.raises(ValueError, match="URL"):
        open_channel("responses_ws", base_url=base, api_key=None)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown channel kind"):
        open_channel("carrier_pigeon", base_url="http://127.0.0.1:1/v1", api_key=None)  # type: ignore[arg-type]


def test_a_bad_url_is_named_without_its_password() -> None:
    import pytest

    from spark_cli.transport.factory import open_channel

    with pytest.raises(ValueError) as info:
        open_channel("chat_sse", base_url="ftp://u:s3cr3tpass@host/v1", api_key=None)
    assert "s3cr3tpass" not in str(info.value) and "***@host" in str(info.value)

"""Asking a server about its window and counting with its tokenizer: blocking (before any
event loop), bounded, best effort; a refusal or timeout ends the probing, nothing raises,
and a host a proxy would carry is not asked."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from spark_cli.record import record
from spark_cli.transport.bodies import key_headers
from spark_cli.transport.http_route import blocking_client
from spark_cli.transport.proxies import is_loopback, proxy_applies
from spark_cli.transport.window import answers

if TYPE_CHECKING:
    import httpx

ASK_TIMEOUT = 2.0
"""Seconds for one ask (connect and answer): a local server answers in milliseconds."""
TOKENIZERS = ("llama.cpp", "llama-cpp-python", "vllm")


class _Refused(Exception):
    """Nothing listens there, or it did not answer in time: stop asking."""


@record
class Found:
    """What a server said of its context window, and which endpoint said it."""

    window: int | None
    """None: the server answered but says nothing of its window (llama-cpp-python's)."""
    where: str
    """What answered, for `spark config` (e.g. ``llama.cpp /props n_ctx``)."""
    tokenizer: str | None = None
    """Which tokenizer endpoint the server has (one of ``TOKENIZERS``), if any."""
    served: str = ""
    """What the server serves: another one drops what was learned of the old one."""
    loaded: int | None = None
    """Ollama: the context the model runs with now (or will load with), below ``window``."""


def server_root(base_url: str) -> str:
    """``http://host:8080/v1`` -> ``http://host:8080`` (where /props, /api/... live)."""
    trimmed = base_url.rstrip("/")
    return trimmed[:-3] if trimmed.endswith("/v1") else trimmed


def may_ask(base_url: str, env: Mapping[str, str] | None = None) -> bool:
    """An http(s) URL, and not a remote host that a proxy would have to carry."""
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    return is_loopback(base_url) or not proxy_applies(
        base_url, os.environ if env is None else env)


def ask(client: httpx.Client, url: str, body: Any = None) -> Any:
    """The JSON answer of ``GET url`` (``POST`` with ``body``); None for most failures."""
    import httpx  # deferred: launch -> request (loaded by blocking_client already)

    try:
        answer = (client.get(url) if body is None else client.post(url, json=body))
        return answer.json() if answer.status_code == 200 else None
    except (httpx.ConnectError, httpx.TimeoutException):  # nothing there, or it does not answer
        raise _Refused from None
    except (httpx.HTTPError, ValueError):
        return None


def _client(api_key: str | None, timeout: float) -> httpx.Client:
    return blocking_client(key_headers(api_key, {"Accept": "application/json"}), timeout)


def discover(base_url: str, model: str, api_key: str | None, *, tokenizer: bool = True,
             timeout: float = ASK_TIMEOUT) -> Found | None:
    """The server's window (and tokenizer unless ``tokenizer`` is False); None when nothing listens.

    Asks llama.cpp ``/props``, ``/v1/models``, LM Studio ``/api/v0/models``, Ollama
    ``/api/show`` with ``/api/ps``, then llama.cpp ``/slots``: the first answer wins."""
    if not may_ask(base_url):
        return None
    root = server_root(base_url)
    with _client(api_key, timeout) as client:
        try:
            found = _window(client, root, base_url.rstrip("/"), model)
            if tokenizer:
                found = replace(found, tokenizer=_tokenizer(client, root, model))
            return found
        except _Refused:
            return None


def _window(client: httpx.Client, root: str, base: str, model: str) -> Found:
    props = ask(client, f"{root}/props")
    found = answers.llama_props(props)
    served = str(props.get("model_path", "")) if isinstance(props, dict) else ""
    if found:
        return Found(found, "llama.cpp /props n_ctx", served=served)
    listed = ask(client, f"{base}/models")
    served = served or answers.served(listed)
    found = answers.model_list(listed, model)
    if found:
        return Found(found, f"{base.rsplit('/', 1)[-1]}/models of the server", served=served)
    found = answers.model_list(ask(client, f"{root}/api/v0/models"), model)
    if found:
        return Found(found, "LM Studio /api/v0/models", served=served)
    shown = ask(client, f"{root}/api/show", {"model": model})
    found = answers.ollama_length(shown)
    if found:
        loaded = answers.ollama_ps(ask(client, f"{root}/api/ps"), model)
        return Found(found, "Ollama /api/show context_length", served=served,
                     loaded=loaded or answers.ollama_num_ctx(shown, found))
    found = answers.llama_slots(ask(client, f"{root}/slots"))
    return Found(found, "llama.cpp /slots n_ctx" if found else "", served=served)


def _tokenizer(client: httpx.Client, root: str, model: str) -> str | None:
    """Which of ``TOKENIZERS`` the server has (it counted a word)."""
    for name in TOKENIZERS:
        if _count(client, root, name, model, "hello") is not None:
            return name
    return None


def _count(client: httpx.Client, root: str, tokenizer: str, model: str, text: str) -> int | None:
    if tokenizer == "llama.cpp":
        answer = ask(client, f"{root}/tokenize", {"content": text})
    elif tokenizer == "llama-cpp-python":
        answer = ask(client, f"{root}/extras/tokenize/count", {"input": text, "model": model})
    else:
        answer = ask(client, f"{root}/tokenize", {"model": model, "prompt": text})
    if not isinstance(answer, dict):
        return None
    counted = answer.get("count")
    if type(counted) is int:
        return counted
    tokens = answer.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None


def count(base_url: str, tokenizer: str, model: str, api_key: str | None, text: str, *,
          timeout: float = ASK_TIMEOUT) -> int | None:
    """``text``'s tokens by the server's own tokenizer; None when it did not answer."""
    with _client(api_key, timeout) as client:
        try:
            return _count(client, server_root(base_url), tokenizer, model, text)
        except _Refused:
            return None

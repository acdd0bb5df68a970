"""Asking a server about its window and counting with its tokenizer: blocking, bounded, quiet.

A one-shot asks before its request is built (the window sizes the repo map), before
any event loop exists, so this is plain ``http.client`` with a short timeout per
ask. Every ask is best effort: a refused connection or an ask that times out ends
the probing at once (at most one ``ASK_TIMEOUT`` is lost to a server that does not
answer), a 404 or an answer without a window moves on to the next endpoint, nothing
raises.
A remote host behind a proxy (``HTTP(S)_PROXY``/``ALL_PROXY``) is not asked.

Order (the first that answers wins, :mod:`.answers` parses):
llama.cpp ``/props`` → the model list (``/v1/models``: vLLM's ``max_model_len``,
OpenRouter's ``context_length``, Groq's ``context_window``) → LM Studio
``/api/v0/models`` → Ollama ``/api/ps`` then ``/api/show`` → llama.cpp ``/slots``.

Tokenizers: llama.cpp ``POST /tokenize {"content"}`` → ``{"tokens": [...]}``;
llama-cpp-python ``POST /extras/tokenize/count {"input"}`` → ``{"count": n}``; vLLM
``POST /tokenize {"model", "prompt"}`` → ``{"count": n, "tokens": [...]}``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from spark_cli.record import record
from spark_cli.transport.window import answers

ASK_TIMEOUT = 2.0
"""Seconds for one ask (connect and answer): a local server answers in milliseconds."""
MAX_BODY = 4 << 20
"""Bytes of an answer read at most (a model list is small; /props holds a chat template)."""
TOKENIZERS = ("llama.cpp", "llama-cpp-python", "vllm")
_LOOPBACK = ("localhost", "127.0.0.1", "::1")


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


def server_root(base_url: str) -> str:
    """``http://host:8080/v1`` -> ``http://host:8080`` (where /props, /api/... live)."""
    trimmed = base_url.rstrip("/")
    return trimmed[:-3] if trimmed.endswith("/v1") else trimmed


def may_ask(base_url: str, env: Any = None) -> bool:
    """An http(s) URL, and not a remote host that a proxy would have to carry."""
    env = os.environ if env is None else env
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return False
    if parts.hostname in _LOOPBACK or parts.hostname.startswith("127."):
        return True
    return not any(env.get(name) or env.get(name.lower())
                   for name in ("HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY"))


def ask(url: str, *, api_key: str | None, body: Any = None,
        timeout: float = ASK_TIMEOUT) -> Any:
    """The JSON answer of ``GET url`` (``POST`` with ``body``), or None for any failure but
    a refused connection (:class:`_Refused`)."""
    import http.client  # only on a cache miss

    parts = urlsplit(url)
    factory: Callable[..., http.client.HTTPConnection] = (
        http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection)
    connection = factory(parts.hostname or "", parts.port, timeout=timeout)
    headers = {"Accept": "application/json"}
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    payload = None
    if body is not None:
        payload = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    path = parts.path + (f"?{parts.query}" if parts.query else "")
    try:
        connection.request("POST" if body is not None else "GET", path or "/", payload,
                           headers)
        response = connection.getresponse()
        raw = response.read(MAX_BODY)
        if response.status != 200:
            return None
        return json.loads(raw)
    except (ConnectionRefusedError, TimeoutError):  # nothing there, or it does not answer
        raise _Refused from None
    except (OSError, ValueError, http.client.HTTPException):
        return None
    finally:
        connection.close()


def discover(base_url: str, model: str, api_key: str | None, *,
             timeout: float = ASK_TIMEOUT) -> Found | None:
    """The server's window (and its tokenizer) by asking it; None when nothing listens."""
    root = server_root(base_url)
    base = base_url.rstrip("/")
    try:
        window, where = _window(root, base, model, api_key, timeout)
        return Found(window, where, _tokenizer(root, model, api_key, timeout))
    except _Refused:
        return None


def _window(root: str, base: str, model: str, api_key: str | None,
            timeout: float) -> tuple[int | None, str]:
    def get(url: str, body: Any = None) -> Any:
        return ask(url, api_key=api_key, body=body, timeout=timeout)

    found = answers.llama_props(get(f"{root}/props"))
    if found:
        return found, "llama.cpp /props n_ctx"
    found = answers.model_list(get(f"{base}/models"), model)
    if found:
        return found, f"{base.rsplit('/', 1)[-1]}/models of the server"
    found = answers.model_list(get(f"{root}/api/v0/models"), model)
    if found:
        return found, "LM Studio /api/v0/models"
    found = answers.ollama_ps(get(f"{root}/api/ps"), model)
    if found:
        return found, "Ollama /api/ps context_length"
    found = answers.ollama_show(get(f"{root}/api/show", {"model": model}))
    if found:
        return found, "Ollama /api/show num_ctx"
    found = answers.llama_slots(get(f"{root}/slots"))
    if found:
        return found, "llama.cpp /slots n_ctx"
    return None, ""


def _tokenizer(root: str, model: str, api_key: str | None, timeout: float) -> str | None:
    """Which of ``TOKENIZERS`` the server has (it counted a word)."""
    for name in TOKENIZERS:
        if count(root, name, model, api_key, "hello", timeout=timeout) is not None:
            return name
    return None


def count(root: str, tokenizer: str, model: str, api_key: str | None, text: str, *,
          timeout: float = ASK_TIMEOUT) -> int | None:
    """``text``'s tokens by the server's own tokenizer; None when it did not answer."""
    try:
        if tokenizer == "llama.cpp":
            answer = ask(f"{root}/tokenize", api_key=api_key, body={"content": text},
                         timeout=timeout)
        elif tokenizer == "llama-cpp-python":
            answer = ask(f"{root}/extras/tokenize/count", api_key=api_key,
                         body={"input": text, "model": model}, timeout=timeout)
        else:
            answer = ask(f"{root}/tokenize", api_key=api_key,
                         body={"model": model, "prompt": text}, timeout=timeout)
    except _Refused:
        return None
    if not isinstance(answer, dict):
        return None
    counted = answer.get("count")
    if type(counted) is int:
        return counted
    tokens = answer.get("tokens")
    return len(tokens) if isinstance(tokens, list) else None

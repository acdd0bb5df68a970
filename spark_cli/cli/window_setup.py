"""The model's window for a run: configured, known by name, cached, asked of the server.

Discovery is I/O, so it lives here on the wiring side; the session gets plain
values in its ``Settings`` (``context_window``, ``max_output_tokens`` following it
unless configured, ``token_scale``) and ``sources["context_window"]`` says where the
window came from (`spark config` shows it). In order:

1. ``context_window`` set in a config file or flag: used as it is;
2. the bundled engine: spark's own count is the engine's (nothing to ask);
3. ``openai`` / ``cerebras`` on their own URL: the known models' table;
4. any other server: the cache (per base URL + model, ``windows.json`` in
   ``$SPARK_CACHE_DIR`` or the user cache dir, :data:`TTL_S`), else asked now
   (:mod:`spark_cli.transport.window.probe`) and cached; a window learned from an
   overflow answer is cached the same way (:func:`remember`).

Counting: where the server has a tokenizer, the measured ratio of its tokens to
spark's is kept in the cache and used (with :data:`MARGIN`); before any
measurement, and for servers without one, spark's count is scaled by
:data:`ESTIMATE_SCALE`, which errs high. :func:`exact_scale` counts a built request
with the server's tokenizer when it is near the cap.
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.protocol.channel import Message, ToolCall, ToolOutput, TurnRequest
from spark_cli.record import record
from spark_cli.session.config.settings import Settings, with_window

CACHE_ENV = "SPARK_CACHE_DIR"
CACHE_NAME = "windows.json"
TTL_S = 24 * 3600.0
"""A cached answer is asked again after a day (a server restarted with another window is
also caught by its first overflow answer)."""
ESTIMATE_SCALE = 1.4
"""Server tokens per spark token assumed where nothing was measured: small-vocabulary
models count code, and the repo map's box glyphs, well above 4 characters a token
(SmolLM2 on a repo map: 1.37)."""
MARGIN = 1.03
"""A measured ratio is used with this margin (the chat template adds a few tokens)."""
NEAR_CAP = 0.8
"""A built request over this share of the cap is counted by the server's tokenizer."""
TEMPLATE_TOKENS = 8
"""Tokens a chat template adds per message (role markers), counted on top."""
KEEP = 64
"""Entries kept in the cache (the newest)."""
HOSTED = {"openai": "https://api.openai.com/v1", "cerebras": "https://api.cerebras.ai/v1"}


@record
class ServerFacts:
    """What spark knows of one server + model (a cache entry)."""

    window: int | None
    where: str
    tokenizer: str | None = None
    scale: float | None = None
    """Measured server tokens per spark token (None: not measured yet)."""
    at: float = 0.0
    """``time.time()`` when learned."""


def cache_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    override = env.get(CACHE_ENV)
    if override:
        return Path(override) / CACHE_NAME
    import platformdirs  # ~5 ms: only when no override

    return Path(platformdirs.user_cache_path("spark", appauthor=False)) / CACHE_NAME


def _key(base_url: str, model: str) -> str:
    return f"{base_url.rstrip('/')} {model}"


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def cached(base_url: str, model: str, env: Mapping[str, str] | None = None) -> ServerFacts | None:
    """The cached facts for ``base_url`` + ``model`` (stale or not), or None."""
    entry = _read(cache_path(env)).get(_key(base_url, model))
    if not isinstance(entry, dict):
        return None
    window, scale = entry.get("window"), entry.get("scale")
    return ServerFacts(window if type(window) is int and window > 0 else None,
                       str(entry.get("where", "")),
                       entry.get("tokenizer") if isinstance(entry.get("tokenizer"), str) else None,
                       float(scale) if isinstance(scale, int | float) and scale > 0 else None,
                       float(entry.get("at", 0.0)) if isinstance(entry.get("at"), int | float)
                       else 0.0)


def store(base_url: str, model: str, facts: ServerFacts,
          env: Mapping[str, str] | None = None) -> None:
    """Keep ``facts`` (atomically; a read-only cache dir only costs the next run an ask)."""
    path = cache_path(env)
    known = _read(path)
    known.pop(_key(base_url, model), None)
    known[_key(base_url, model)] = {"window": facts.window, "where": facts.where,
                                    "tokenizer": facts.tokenizer, "scale": facts.scale,
                                    "at": facts.at}
    try:
        write_atomic(path, json.dumps(dict(list(known.items())[-KEEP:]), indent=1).encode(),
                     durable=False)
    except OSError:
        pass


def _ago(seconds: float) -> str:
    if seconds < 90:
        return "just now"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min ago"
    return f"{seconds / 3600:.0f} h ago"


def resolve(settings: Settings, env: Mapping[str, str] | None = None, *,
            ask: bool = True) -> Settings:
    """``settings`` with the model's window and token scale (see the module doc)."""
    provider = settings.provider
    if provider.kind == "mock" or not provider.base_url:
        return settings
    base_url, model = provider.base_url, provider.model
    if HOSTED.get(provider.name) == base_url:
        from spark_cli.transport.window.known import known_window

        known = known_window(provider.name, model)
        if known is None or settings.sources.get("context_window") != "default":
            return settings
        return with_window(settings, known, f"known model {model} ({provider.name})")
    facts = _facts(base_url, model, provider.api_key, env, ask=ask)
    scale = facts.scale * MARGIN if facts is not None and facts.scale else ESTIMATE_SCALE
    if settings.sources.get("context_window") != "default" or facts is None \
            or facts.window is None:
        return replace(settings, token_scale=scale)
    age = time.time() - facts.at
    source = f"server: {facts.where}" + (f" (asked {_ago(age)})" if age >= 1 else " (asked now)")
    return with_window(settings, facts.window, source, token_scale=scale)


def _facts(base_url: str, model: str, api_key: str | None, env: Mapping[str, str] | None, *,
           ask: bool) -> ServerFacts | None:
    known = cached(base_url, model, env)
    if known is not None and time.time() - known.at < TTL_S:
        return known
    from spark_cli.transport.window.probe import discover, may_ask

    if not ask or not may_ask(base_url, env):
        return known
    found = discover(base_url, model, api_key)
    if found is None:  # nothing listens: the turn will say so; keep what was known
        return known
    facts = ServerFacts(found.window, found.where, found.tokenizer,
                        known.scale if known is not None else None, time.time())
    if found.window is None and known is not None and known.window is not None:
        facts = replace(facts, window=known.window, where=known.where)  # learned before
    store(base_url, model, facts, env)
    return facts


def remember(settings: Settings, window: int | None, scale: float | None,
             env: Mapping[str, str] | None = None) -> None:
    """Keep a window (and ratio) the session learned from an overflow answer, or a ratio
    measured by the server's tokenizer, for the next run."""
    provider = settings.provider
    if provider.kind == "mock" or not provider.base_url:
        return
    old = cached(provider.base_url, provider.model, env) or ServerFacts(None, "")
    facts = ServerFacts(window or old.window,
                        "the server's overflow answer" if window else old.where,
                        old.tokenizer, scale or old.scale, time.time())
    store(provider.base_url, provider.model, facts, env)


def request_text(request: TurnRequest) -> str:
    """What a chat template renders, near enough: the instructions, the tool definitions
    and every item (messages, tool calls and their outputs), as spark counts them."""
    parts = [request.instructions]
    if request.tools:
        parts.extend(json.dumps({"name": s.name, "description": s.description,
                                 "parameters": s.parameters}) for s in request.tools)
    for item in request.messages:
        if type(item) is Message:
            parts.append(item.content)
        elif type(item) is ToolCall:
            parts.extend((item.name, item.arguments))
        elif type(item) is ToolOutput:
            parts.append(item.output)
    return "\n".join(parts)


def exact_scale(settings: Settings, request: TurnRequest, pieces: int,
                env: Mapping[str, str] | None = None) -> float | None:
    """The server's tokens per spark token for ``request`` (``pieces`` spark tokens),
    counted by its tokenizer when the request is near the cap; None when not counted.
    The measured ratio is cached for the next run."""
    provider = settings.provider
    if provider.kind == "mock" or not provider.base_url or pieces <= 0:
        return None
    facts = cached(provider.base_url, provider.model, env)
    if facts is None or facts.tokenizer is None:
        return None
    cap = max(1, settings.context_window - settings.max_output_tokens)
    if pieces * settings.token_scale < NEAR_CAP * cap and facts.scale is not None:
        return None
    from spark_cli.transport.window.probe import count, server_root

    counted = count(server_root(provider.base_url), facts.tokenizer, provider.model,
                    provider.api_key, request_text(request))
    if counted is None:
        return None
    counted += TEMPLATE_TOKENS * (len(request.messages) + 1)
    scale = math.ceil(counted / pieces * 1000) / 1000
    store(provider.base_url, provider.model, replace(facts, scale=scale), env)
    return scale


def fit_exactly(session: Any, instruction: str, files: list[str]) -> Any:
    """After ``session.prepare``: count the prepared request with the server's tokenizer
    where it is near the cap, and prepare again with the measured ratio when spark's
    estimate was low; the new preparation's failure (a ``TurnFailed``), if any."""
    request, context = session.prepared, session.context
    settings: Settings = session.settings
    if request is None or context is None:
        return None
    pieces = round(context.used / settings.token_scale)
    measured = exact_scale(settings, request, pieces)
    if measured is None or measured * MARGIN <= settings.token_scale:
        return None
    session.configure(replace(settings, token_scale=round(measured * MARGIN, 3)))
    return session.prepare(instruction, files)

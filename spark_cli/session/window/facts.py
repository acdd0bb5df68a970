"""Where a run's window comes from, and what spark keeps per server between runs."""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.record import record
from spark_cli.session.config.settings import (
    DEFAULT_CONTEXT_WINDOW,
    ProviderSettings,
    Settings,
    with_window,
)

CACHE_ENV, CACHE_NAME = "SPARK_CACHE_DIR", "windows.json"
TTL_S = 24 * 3600.0
"""A server's answer is asked again after a day (a hint meanwhile)."""
ESTIMATE_SCALE = 1.4
"""Server tokens per spark token assumed where nothing was measured: small-vocabulary
models count code well above 4 characters a token (SmolLM2 on a repo map: 1.37)."""
MARGIN = 1.03
"""A measured ratio is used with this margin (the chat template adds a few tokens)."""
KEEP = 64
UNKNOWN = "unknown: the server does not say (learned at the first overflow)"
SILENT = "unknown: the server did not answer (learned at the first overflow)"
CACHED = "cached from the server: "
LEARNED_NOW = "the server's overflow answer"
"""``sources["context_window"]`` once this session learned the window from an overflow."""
HOSTED = {"openai": "https://api.openai.com/v1", "cerebras": "https://api.cerebras.ai/v1"}
KNOWN: dict[str, dict[str, int]] = {
    "openai": {"gpt-5.3-codex-spark": 128_000, "gpt-5": 400_000, "gpt-4.1": 1_047_576,
               "gpt-4o": 128_000, "o3": 200_000, "o4-mini": 200_000, "codex-mini": 200_000},
    "cerebras": {"gpt-oss-120b": 131_072, "qwen-3-coder-480b": 131_072,
                 "qwen-3-235b": 131_072, "zai-glm": 131_072, "llama-3.3-70b": 131_072,
                 "llama3.1-8b": 32_768},
}
"""Windows of hosted models by name; the longest matching prefix wins."""


@record
class ServerFacts:
    """What spark knows of one server + model (a cache entry)."""

    window: int | None
    where: str
    tokenizer: str | None = None
    scale: float | None = None
    """Measured server tokens per spark token (None: not measured yet)."""
    at: float = 0.0
    learned: bool = False
    """The window came from an overflow answer (a hint), not from the server's word."""
    served: str = ""
    loaded: int | None = None
    """Ollama: the context the model runs with (its channel goes native beyond it)."""


Ask = Callable[..., ServerFacts | None]
"""``ask(base_url, model, api_key, tokenizer=bool)``: what the server says now (its window,
where, tokenizer, served, loaded: the transport's probe), None if nothing answers."""


def known_window(provider: str, model: str) -> int | None:
    table = KNOWN.get(provider, {})
    best = max((prefix for prefix in table if model.startswith(prefix)), key=len, default=None)
    return table[best] if best is not None else None


def cache_path(env: Mapping[str, str] | None = None) -> Path:
    env = os.environ if env is None else env
    if env.get(CACHE_ENV):
        return Path(env[CACHE_ENV]) / CACHE_NAME
    import platformdirs  # deferred: launch -> request

    return Path(platformdirs.user_cache_path("spark", appauthor=False)) / CACHE_NAME


def _read(path: Path) -> dict[str, Any]:
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def _key(settings: Settings | ProviderSettings) -> str:
    provider = settings.provider if isinstance(settings, Settings) else settings
    return f"{(provider.base_url or '').rstrip('/')} {provider.model}"


def cached(settings: Settings | ProviderSettings,
           env: Mapping[str, str] | None = None) -> ServerFacts | None:
    """The cached facts for the settings' server + model (stale or not), or None."""
    entry = _read(cache_path(env)).get(_key(settings))
    if not isinstance(entry, dict):
        return None
    try:
        return ServerFacts(**entry)
    except TypeError:  # an older spark's entry
        return None


def store(settings: Settings, facts: ServerFacts, env: Mapping[str, str] | None = None) -> None:
    """Keep ``facts`` (the newest ``KEEP``); a read-only cache dir costs the next run an ask."""
    path = cache_path(env)
    known = _read(path)
    known.pop(_key(settings), None)  # re-added last: the oldest go first
    known[_key(settings)] = dataclasses.asdict(facts)
    try:
        write_atomic(path, json.dumps(dict(list(known.items())[-KEEP:]), indent=1).encode(),
                     durable=False)
    except OSError:
        pass


def is_hint(settings: Settings) -> bool:
    """The window is a guess, learned or cached (not stated now): trim to it, never refuse."""
    source = settings.sources.get("context_window", "")
    return source.startswith(("unknown: ", "learned ", CACHED))


def learned_source(window: int, at: float) -> str:
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(at))
    return f"learned {window} at the overflow of {when}"


def resolve(settings: Settings, ask: Ask | None, env: Mapping[str, str] | None = None, *,
            fresh: bool = False) -> Settings:
    """``settings`` with the model's window and token scale: configured (nothing asked), the
    bundled engine's, :data:`KNOWN` hosted models, else the server asked (``ask``) once per
    :data:`TTL_S` (``fresh``: now) and cached; only a window stated in this run is a limit.
    """
    provider = settings.provider
    if provider.kind == "mock" or not provider.base_url:
        return settings
    configured = settings.sources.get("context_window") != "default"
    if HOSTED.get(provider.name) == provider.base_url:
        known = known_window(provider.name, provider.model)
        if known is None or configured:
            return settings
        return with_window(settings, known, f"known model {provider.model} ({provider.name})")
    facts, asked = (cached(settings, env), False) if configured else _facts(settings, ask, env,
                                                                            fresh=fresh)
    scale = facts.scale * MARGIN if facts is not None and facts.scale else ESTIMATE_SCALE
    if configured:  # nothing to ask (the scale measured before, if any)
        return replace(settings, token_scale=scale)
    if facts is None or facts.window is None:  # nothing listens (the turn will say), or mute
        return replace(settings, token_scale=scale, sources={
            **settings.sources, "context_window": SILENT if facts is None else UNKNOWN})
    source = (learned_source(facts.window, facts.at) if facts.learned
              else f"server: {facts.where}" if asked  # its word now: a limit
              else f"{CACHED}{facts.where} (asked {(time.time() - facts.at) / 60:.0f} min ago)")
    return with_window(settings, facts.window, source, token_scale=scale)


def _facts(settings: Settings, ask: Ask | None, env: Mapping[str, str] | None, *,
           fresh: bool) -> tuple[ServerFacts | None, bool]:
    """The facts, and whether the server was asked now."""
    old = cached(settings, env)
    base_url = settings.provider.base_url or ""
    if ask is None or (old is not None and not fresh and time.time() - old.at < TTL_S):
        return old, False
    found = ask(base_url, settings.provider.model, settings.provider.api_key,
                tokenizer=old is None or old.tokenizer is None)
    if found is None:  # nothing listens: keep what was known
        return old, False
    facts = replace(found, at=time.time())
    if old is not None and old.served == found.served:  # the same model: keep what was learned
        facts = replace(facts, tokenizer=found.tokenizer or old.tokenizer, scale=old.scale)
        if found.window is None and old.learned:
            facts = replace(facts, window=old.window, where=old.where, at=old.at, learned=True)
    store(settings, facts, env)
    return facts, True


def remember(settings: Settings, env: Mapping[str, str] | None = None) -> None:
    """Keep the window (and ratio) this session learned from an overflow answer."""
    if settings.provider.kind == "mock" or not settings.provider.base_url:
        return
    old = cached(settings, env) or ServerFacts(None, "")
    store(settings, replace(old, window=settings.context_window, where=LEARNED_NOW,
                            scale=round(settings.token_scale / MARGIN, 3), at=time.time(),
                            learned=True), env)


def forget(settings: Settings, env: Mapping[str, str] | None = None) -> Settings:
    """Drop a learned window: unknown again until the next overflow."""
    old = cached(settings, env)
    if old is not None and old.learned:
        store(settings, replace(old, window=None, where="", learned=False), env)
    if not is_hint(settings) and settings.sources.get("context_window") != LEARNED_NOW:
        return settings
    return with_window(settings, DEFAULT_CONTEXT_WINDOW, UNKNOWN)

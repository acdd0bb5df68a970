"""Each server's answer about its window, parsed: pure functions over decoded JSON.

Every parser takes what the endpoint returned (``json.loads`` of the body) and
the model name spark sends, and returns the window in tokens or None when the
answer does not say. Shapes (recorded from the real servers where one ran
here, else from their documentation):

- llama.cpp ``llama-server`` ``GET /props``:
  ``{"default_generation_settings": {"n_ctx": 8192, ...}, ...}`` (older builds: ``n_ctx``
  at the top level); ``GET /slots``: ``[{"id": 0, "n_ctx": 8192, ...}]``.
- llama-cpp-python's server ``GET /v1/models``: ``{"data": [{"id": ..., "object": "model",
  "owned_by": "me", "permissions": []}]}``: no window at all (it is learned from the first
  overflow answer instead, :mod:`spark_cli.transport.overflow`).
- vLLM ``GET /v1/models``: ``{"data": [{"id": "m", "max_model_len": 32768, ...}]}``.
- LM Studio ``GET /api/v0/models``: ``{"data": [{"id": "m", "state": "loaded",
  "max_context_length": 32768, "loaded_context_length": 4096}]}`` (the loaded one wins).
- Ollama ``GET /api/ps`` (loaded models): ``{"models": [{"name": "m", "context_length":
  8192}]}``; ``POST /api/show``: ``{"parameters": "num_ctx 8192\\n...", "model_info":
  {"llama.context_length": 131072}}``: ``num_ctx`` when the model sets one, else Ollama's
  default (``OLLAMA_DEFAULT_CTX``), never more than the trained length.
- OpenRouter and Groq model lists: ``context_length`` / ``context_window`` per entry.
"""

from __future__ import annotations

from typing import Any

OLLAMA_DEFAULT_CTX = 4096
"""Ollama's ``num_ctx`` when neither the model nor the server sets one (0.6 and later)."""
_LIST_KEYS = ("max_model_len", "loaded_context_length", "context_length", "context_window",
              "max_context_length")
"""Per-entry window keys of a model list, best first (the loaded window before the most
the model could take)."""


def _positive(value: object) -> int | None:
    return value if type(value) is int and value > 0 else None


def llama_props(answer: Any) -> int | None:
    """llama.cpp ``/props``: ``default_generation_settings.n_ctx`` (or a top-level ``n_ctx``)."""
    if not isinstance(answer, dict):
        return None
    settings = answer.get("default_generation_settings")
    if isinstance(settings, dict):
        found = _positive(settings.get("n_ctx"))
        if found:
            return found
    return _positive(answer.get("n_ctx"))


def llama_slots(answer: Any) -> int | None:
    """llama.cpp ``/slots``: the smallest slot's ``n_ctx`` (each slot holds one request)."""
    if not isinstance(answer, list):
        return None
    sizes = [n for slot in answer if isinstance(slot, dict)
             for n in [_positive(slot.get("n_ctx"))] if n]
    return min(sizes) if sizes else None


def model_list(answer: Any, model: str) -> int | None:
    """An OpenAI-style model list (vLLM, LM Studio ``/api/v0/models``, OpenRouter, Groq):
    the named model's window; the only entry's when the name is not listed (a server that
    serves one model under any name)."""
    entries = answer.get("data") if isinstance(answer, dict) else answer
    if not isinstance(entries, list):
        return None
    models = [e for e in entries if isinstance(e, dict)]
    named = [e for e in models if e.get("id") == model or e.get("name") == model]
    chosen = named or (models if len(models) == 1 else [])
    for entry in chosen:
        for key in _LIST_KEYS:
            found = _positive(entry.get(key))
            if found:
                return found
    return None


def ollama_ps(answer: Any, model: str) -> int | None:
    """Ollama ``/api/ps``: the loaded model's ``context_length`` (what it runs with now)."""
    if not isinstance(answer, dict) or not isinstance(answer.get("models"), list):
        return None
    for entry in answer["models"]:
        if isinstance(entry, dict) and model in (entry.get("name"), entry.get("model")):
            return _positive(entry.get("context_length"))
    return None


def ollama_show(answer: Any) -> int | None:
    """Ollama ``/api/show``: ``num_ctx`` from the model's parameters, else Ollama's default,
    capped by the trained ``*.context_length``."""
    if not isinstance(answer, dict) or not isinstance(answer.get("model_info"), dict):
        return None
    trained = next((n for key, value in answer["model_info"].items()
                    if key.endswith(".context_length") for n in [_positive(value)] if n), None)
    num_ctx = None
    parameters = answer.get("parameters")
    if isinstance(parameters, str):
        for line in parameters.splitlines():
            name, _, value = line.strip().partition(" ")
            if name == "num_ctx" and value.strip().isdigit():
                num_ctx = int(value.strip())
    window = num_ctx or OLLAMA_DEFAULT_CTX
    return min(window, trained) if trained else window

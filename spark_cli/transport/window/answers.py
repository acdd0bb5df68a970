"""Each server's answer about its window, parsed from its decoded JSON (None: not said).
Shapes are in tests/transport/window/test_answers.py, recorded or from each server's docs."""

from __future__ import annotations

from typing import Any

OLLAMA_DEFAULT_CTX = 4096
"""Ollama's ``num_ctx`` when neither the model nor the server sets one (0.6 and later)."""
_LIST_KEYS = ("max_model_len", "loaded_context_length", "context_length", "context_window",
              "max_context_length")
"""Per-entry window keys of a model list, best first (the loaded window first)."""


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
    """llama.cpp ``/slots``: the smallest slot's ``n_ctx``."""
    if not isinstance(answer, list):
        return None
    sizes = [n for slot in answer if isinstance(slot, dict)
             for n in [_positive(slot.get("n_ctx"))] if n]
    return min(sizes) if sizes else None


def model_list(answer: Any, model: str) -> int | None:
    """An OpenAI-style model list (vLLM, LM Studio, OpenRouter, Groq): the named model's window,
    or the only entry's when the name is not listed."""
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
    """Ollama ``/api/ps``: the loaded model's ``context_length``."""
    if not isinstance(answer, dict) or not isinstance(answer.get("models"), list):
        return None
    for entry in answer["models"]:
        if isinstance(entry, dict) and model in (entry.get("name"), entry.get("model")):
            return _positive(entry.get("context_length"))
    return None


def served(answer: Any) -> str:
    """What a model list says is served (its ids, sorted): a new model file shows here."""
    entries = answer.get("data") if isinstance(answer, dict) else None
    ids = sorted(str(e.get("id")) for e in entries or () if isinstance(e, dict))
    return " ".join(ids)


def ollama_length(answer: Any) -> int | None:
    """Ollama ``/api/show``: the model's trained ``*.context_length``."""
    if not isinstance(answer, dict) or not isinstance(answer.get("model_info"), dict):
        return None
    return next((n for key, value in answer["model_info"].items()
                 if key.endswith(".context_length") for n in [_positive(value)] if n), None)


def ollama_num_ctx(answer: Any, length: int) -> int:
    """Ollama's loaded context: the ``num_ctx`` parameter, else its default, within ``length``."""
    num_ctx = None
    parameters = answer.get("parameters") if isinstance(answer, dict) else None
    for line in parameters.splitlines() if isinstance(parameters, str) else ():
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            num_ctx = int(value.strip())
    return min(num_ctx or OLLAMA_DEFAULT_CTX, length)

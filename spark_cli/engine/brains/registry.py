"""Which brain answers: brain specs (``rules``, ``deep``, ``lorem``, ``script:PATH``), the model
names that select them, and a cache of brain instances.

``brain_for_model`` is what the engine's lookup (``engine/core/brain_lookup.py``)
calls per request: a model naming a brain (``spark-rules`` …) selects it;
any other model name gets the server's default, so clients with fixed model
names (``gpt-4.1`` …) still work. Brains are cached per spec (a script per
version of its file: path, mtime, size) in an LRU of :data:`CACHE_SIZE`.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Iterator

from spark_cli.engine.brains.base import Brain, BrainRequest
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.lorem import LoremBrain
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.engine.brains.script import ScriptBrain, ScriptError

__all__ = ["BRAIN_MODELS", "BRAIN_SPECS", "ScriptError", "brain_for_model", "make_brain",
           "pace_of_model"]

BRAIN_MODELS: dict[str, str] = {
    "spark-rules": "rules",
    "spark-deep": "deep",
    "spark-lorem": "lorem",
    "spark-script": "script",
}
BRAIN_SPECS = ("rules", "deep", "lorem", "script:PATH")

CACHE_SIZE = 8
"""Brains kept (rules, deep, lorem and a few script versions); the least recently used go."""
_cache: OrderedDict[tuple[str, ...], Brain] = OrderedDict()
_lock = threading.Lock()


class NoScriptBrain:
    """Answers ``spark-script`` requests on a server started without a script."""

    name = "script"

    def answer(self, request: BrainRequest) -> Iterator[str]:
        yield ("The model spark-script plays back a recorded script, but this engine was "
               "started without one: start it with `spark engine serve --brain script:PATH` "
               "(see docs/brains.md).\n")


def _script_key(path: str) -> tuple[str, ...]:
    try:
        stat = os.stat(path)
    except OSError:
        return ("script", path)
    return ("script", os.path.realpath(path), str(stat.st_mtime_ns), str(stat.st_size))


def make_brain(spec: str) -> Brain:
    """The (cached) brain for ``spec``: ``rules``, ``deep``, ``lorem`` or ``script:PATH``.

    Raises ``ValueError`` for an unknown spec (listing the known ones) and
    :class:`ScriptError` (a ``ValueError``) for a missing or malformed script.
    A script brain is cached per file version, so editing the file reloads it.
    """
    spec = spec.strip()
    if spec.startswith("script:"):
        path = spec.removeprefix("script:")
        if not path:
            raise ValueError("script:PATH needs a path, e.g. --brain script:answers.toml")
        key = _script_key(path)
    elif spec in ("rules", "deep", "lorem"):
        key = (spec,)
    else:
        raise ValueError(f"unknown brain {spec!r}; known: {', '.join(BRAIN_SPECS)}")
    with _lock:
        brain = _cache.get(key)
        if brain is None:
            if key[0] == "script":
                brain = ScriptBrain(spec.removeprefix("script:"))
            elif key[0] == "lorem":
                brain = LoremBrain()
            elif key[0] == "deep":
                brain = DeepBrain()
            else:
                brain = RulesBrain()
            _cache[key] = brain
            while len(_cache) > CACHE_SIZE:
                _cache.popitem(last=False)
        else:
            _cache.move_to_end(key)
        return brain


def _default_spec(default: str, script_path: str | None) -> str:
    if default == "script":
        return f"script:{script_path}" if script_path else "script"
    return default


def brain_for_model(model: str, default: str, *, script_path: str | None = None) -> Brain:
    """The brain for a request's ``model``: the one it names, else ``default``.

    ``default`` is a spec (``rules``, ``lorem``, ``script``, ``script:PATH``);
    ``script`` takes its file from ``script_path``.
    """
    named = BRAIN_MODELS.get(model)
    if named == "script":
        spec = f"script:{script_path}" if script_path else _default_spec(default, None)
        if not spec.startswith("script:"):
            return NoScriptBrain()
        return make_brain(spec)
    if named is not None:
        return make_brain(named)
    spec = _default_spec(default, script_path)
    if spec == "script":
        return NoScriptBrain()
    return make_brain(spec)


def pace_of_model(model: str) -> str:
    """``"deep"`` for a model the deep brain answers (``spark-deep``), else ``"fast"``."""
    return "deep" if BRAIN_MODELS.get(model) == "deep" else "fast"

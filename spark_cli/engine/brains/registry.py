"""Which brain answers: the brain specs, the model names that select them (any other model
gets the server's default), and an LRU of brain instances (a script per file version)."""

from __future__ import annotations

import importlib
import os
import threading
from collections import OrderedDict
from collections.abc import Iterator

from spark_cli.engine.brains.base import Brain, BrainRequest

BRAIN_MODELS: dict[str, str] = {
    "spark-rules": "rules",
    "spark-deep": "deep",
    "spark-lorem": "lorem",
    "spark-script": "script",
}
BRAIN_SPECS = ("rules", "deep", "lorem", "script:PATH")
BRAIN_CLASSES: dict[str, str] = {
    "rules": "spark_cli.engine.brains.rules.rules_brain:RulesBrain",
    "deep": "spark_cli.engine.brains.deep.deep_brain:DeepBrain",
    "lorem": "spark_cli.engine.brains.lorem:LoremBrain",
    "script": "spark_cli.engine.brains.script:ScriptBrain",
}
"""Where each brain's class lives (``module:Class``), imported when the brain is first made."""

CACHE_SIZE = 8
_cache: OrderedDict[tuple[str, ...], Brain] = OrderedDict()
_lock = threading.Lock()


class NoScriptBrain:
    """Answers ``spark-script`` requests on a server started without a script."""

    name = "script"

    def answer(self, request: BrainRequest) -> Iterator[str]:
        yield ("The model spark-script plays back a recorded script, but this engine was "
               "started without one: start it with `spark engine serve --brain script:PATH` "
               "(see docs/brains.md).\n")


def _key(spec: str) -> tuple[str, ...]:
    """The cache key of a stripped ``spec``; ValueError for a spec no brain answers to."""
    if spec.startswith("script:"):
        path = spec.removeprefix("script:")
        if not path:
            raise ValueError("script:PATH needs a path, e.g. --brain script:answers.toml")
        try:
            stat = os.stat(path)
        except OSError:
            return ("script", path)
        return ("script", os.path.realpath(path), str(stat.st_mtime_ns), str(stat.st_size))
    if spec in ("rules", "deep", "lorem"):
        return (spec,)
    raise ValueError(f"unknown brain {spec!r}; known: {', '.join(BRAIN_SPECS)}")


def make_brain(spec: str) -> Brain:
    """The (cached) brain for ``spec``; ``ValueError`` or ``ScriptError`` when it is bad."""
    spec = spec.strip()
    key = _key(spec)
    with _lock:
        brain = _cache.get(key)
        if brain is not None:
            _cache.move_to_end(key)
            return brain
    # made outside the lock (an import may take a while); only now is its class imported
    module, _, name = BRAIN_CLASSES[key[0]].partition(":")
    args = (spec.removeprefix("script:"),) if key[0] == "script" else ()
    made = getattr(importlib.import_module(module), name)(*args)
    with _lock:
        brain = _cache.setdefault(key, made)  # a racing thread's brain wins if it was first
        _cache.move_to_end(key)
        while len(_cache) > CACHE_SIZE:
            _cache.popitem(last=False)
        return brain


def pace_of_model(model: str) -> str:
    """``"deep"`` for a model the deep brain answers (``spark-deep``), else ``"fast"``."""
    return "deep" if BRAIN_MODELS.get(model) == "deep" else "fast"


class RegistryBrains:
    """The server's factory: model name -> brain, the one it names, else ``default``'s."""

    def __init__(self, default: str) -> None:
        """Raise ``ValueError`` unless ``default`` names a brain (a script is loaded)."""
        self.default = default.strip()
        spec = self._spec("")
        if spec is not None and spec.startswith("script:"):
            make_brain(spec)
        elif spec is not None:
            _key(spec)

    def _spec(self, model: str) -> str | None:
        """The spec that answers ``model`` (None: the no-script explanation)."""
        named = BRAIN_MODELS.get(model)
        script_default = named == "script" and self.default.startswith("script:")
        spec = self.default if named is None or script_default else named
        return None if spec == "script" else spec

    def __call__(self, model: str) -> Brain:
        spec = self._spec(model)
        return NoScriptBrain() if spec is None else make_brain(spec)

    def loaded(self, model: str) -> bool:
        """Is ``model``'s brain ready (calling this factory imports and reads nothing)?"""
        spec = self._spec(model)
        if spec is None:
            return True
        key = _key(spec)  # the default was checked when made: no ValueError here
        with _lock:
            return key in _cache

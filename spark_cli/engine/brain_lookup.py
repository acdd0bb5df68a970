"""Which brain answers a request: the brains registry when present, else a stand-in.

The registry (``spark_cli.engine.brains.registry``) maps model names such as
``spark-rules`` to brains and falls back to the ``--brain`` default. It is
imported lazily, so the server works (with :class:`StandInBrain`) before the
registry exists and picks it up the moment it does.

Nothing is cached here per model name (a client chooses model names freely:
a cache keyed by them would grow with every distinct name). The registry
caches brains per *spec* in a small LRU, and a script brain per version of its
file (path, mtime, size), so editing the script reloads it on the next request.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator

from spark_cli.engine.brains.base import Brain, BrainRequest

BrainFactory = Callable[[str], Brain]
"""Model name -> brain (the server's hook; tests pass their own)."""


class StandInBrain:
    """Answers with a short explanation (only used while no registry is installed)."""

    name = "stand-in"

    def answer(self, request: BrainRequest) -> Iterator[str]:
        yield "The bundled engine has no brains installed yet.\n"
        yield f"You asked: {request.prompt[:200]}\n"


def _registry() -> object | None:
    try:
        return importlib.import_module("spark_cli.engine.brains.registry")
    except ImportError:
        return None


def registry_factory(default: str, script_path: str | None = None) -> BrainFactory:
    """A factory over the brains registry (or the stand-in while it is missing)."""
    stand_in = StandInBrain()

    def factory(model: str) -> Brain:
        registry = _registry()
        if registry is None:
            return stand_in
        pick = registry.brain_for_model  # type: ignore[attr-defined]
        brain: Brain = pick(model, default, script_path=script_path)
        return brain

    return factory


def model_names() -> list[str]:
    """The brain models ``/v1/models`` lists."""
    registry = _registry()
    models = getattr(registry, "BRAIN_MODELS", None) if registry is not None else None
    if isinstance(models, dict) and models:
        return sorted(models)
    return ["spark-rules", "spark-lorem"]

"""Which brain answers a request: the brains registry, behind the server's factory hook.

The registry (``spark_cli.engine.brains.registry``) maps model names such as
``spark-rules`` to brains and falls back to the ``--brain`` default. It is
imported when the first factory is made (at engine start: the rules brain pulls
in tree-sitter), and a registry that fails to import fails the engine's start
loudly.

Nothing is cached here per model name (a client chooses model names freely:
a cache keyed by them would grow with every distinct name). The registry
caches brains per *spec* in a small LRU, and a script brain per version of its
file (path, mtime, size), so editing the script reloads it on the next request.
"""

from __future__ import annotations

from collections.abc import Callable

from spark_cli.engine.brains.base import Brain

BrainFactory = Callable[[str], Brain]
"""Model name -> brain (the server's hook; tests pass their own)."""


def registry_factory(default: str, script_path: str | None = None) -> BrainFactory:
    """A factory over the brains registry: ``default`` for model names that name no brain."""
    from spark_cli.engine.brains.registry import brain_for_model

    def factory(model: str) -> Brain:
        return brain_for_model(model, default, script_path=script_path)

    return factory


def model_names() -> list[str]:
    """The brain models ``/v1/models`` lists."""
    from spark_cli.engine.brains.registry import BRAIN_MODELS

    return sorted(BRAIN_MODELS)


def model_paces() -> dict[str, str]:
    """Each brain model's pace (``"deep"`` or ``"fast"``), in :func:`model_names` order."""
    from spark_cli.engine.brains.registry import pace_of_model

    return {name: pace_of_model(name) for name in model_names()}

"""Which brain answers a request: the brains registry, behind the server's factory hook.

The registry (``spark_cli.engine.brains.registry``) maps model names such as
``spark-rules`` to brains and falls back to the ``--brain`` default. It is
imported when the first factory is made (at engine start, where the default is
checked: a bad ``--brain`` fails the start, a registry that fails to import fails
it loudly); each brain's own modules load when it first answers (the rules brain
pulls in tree-sitter), and :meth:`RegistryBrains.loaded` lets the engine do that
off its event loop.
"""

from __future__ import annotations

from collections.abc import Callable

from spark_cli.engine.brains.base import Brain

BrainFactory = Callable[[str], Brain]
"""Model name -> brain (the server's hook; tests pass their own)."""


class RegistryBrains:
    """Model name -> brain over the registry, ``default`` for model names that name none.

    Nothing is cached here per model name (a client chooses model names freely:
    a cache keyed by them would grow with every distinct name). The registry
    caches brains per *spec* in a small LRU, and a script brain per version of its
    file (path, mtime, size), so editing the script reloads it on the next request.
    """

    def __init__(self, default: str, script_path: str | None = None) -> None:
        # deferred: bundled tiny edit
        from spark_cli.engine.brains.registry import brain_for_model, check_default, is_loaded

        check_default(default, script_path)  # ValueError: a bad --brain
        self._brain_for_model = brain_for_model
        self._is_loaded = is_loaded
        self.default = default
        self.script_path = script_path

    def __call__(self, model: str) -> Brain:
        return self._brain_for_model(model, self.default, script_path=self.script_path)

    def loaded(self, model: str) -> bool:
        """Is ``model``'s brain ready (calling this factory imports and reads nothing)?"""
        return self._is_loaded(model, self.default, script_path=self.script_path)


def registry_factory(default: str, script_path: str | None = None) -> BrainFactory:
    """A factory over the brains registry (see :class:`RegistryBrains`); raises ``ValueError``
    when ``default`` names no brain."""
    return RegistryBrains(default, script_path)


def model_names() -> list[str]:
    """The brain models ``/v1/models`` lists."""
    from spark_cli.engine.brains.registry import BRAIN_MODELS  # deferred: bundled tiny edit

    return sorted(BRAIN_MODELS)


def model_paces() -> dict[str, str]:
    """Each brain model's pace (``"deep"`` or ``"fast"``), in :func:`model_names` order."""
    from spark_cli.engine.brains.registry import pace_of_model  # deferred: bundled tiny edit

    return {name: pace_of_model(name) for name in model_names()}

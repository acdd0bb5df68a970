"""The repo's files for the ``@`` picker and ``/add``, listed (and their ``PathMatcher`` made)
in a worker thread when first needed; ``matcher()`` is None until then, and ``stale()`` keeps
the old list while a new one is made."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

from spark_cli.session.api import SessionApi
from spark_cli.tui.prompt.fuzzy import PathMatcher


class RepoPaths:
    """The session's repo files as a matcher, made in the background (module doc)."""

    def __init__(self, session: SessionApi,
                 spawn: Callable[[Coroutine[Any, Any, None]], None],
                 ready: Callable[[], None]) -> None:
        self.session = session
        self.spawn = spawn
        self.ready = ready
        self._matcher: PathMatcher | None = None
        self._loading = False
        self._stale = False

    def matcher(self) -> PathMatcher | None:
        """The matcher (None until the first listing is done); starts a listing if needed."""
        if (self._matcher is None or self._stale) and not self._loading:
            self._loading = True
            self.spawn(self._load())
        return self._matcher

    def stale(self) -> None:
        self._stale = True

    async def _load(self) -> None:
        try:
            self._stale = False
            self._matcher = await asyncio.to_thread(
                lambda: PathMatcher(self.session.repo_files()))
        finally:
            self._loading = False
        self.ready()

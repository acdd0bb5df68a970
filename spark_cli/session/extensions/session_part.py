"""The session's side of the user's extensions, mixed into `Session`: prompt files (their
``model`` for their own turn), skills, hooks and their warnings, ``/hooks``."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.session.context.targets import RequestError
from spark_cli.session.extensions.prompt_files import expand_line
from spark_cli.session.extensions.skills import attach_skills, load_skills, outside_folders

if TYPE_CHECKING:
    from spark_cli.session.actions.approval import Approver
    from spark_cli.session.config.settings import Settings
    from spark_cli.session.events import SessionEvent
    from spark_cli.session.extensions.hooks import Hooks
    from spark_cli.session.workspace.turns import TurnRecord


class SessionExtensions:
    """What `Session` does for prompt files, skills and hooks (it holds the state)."""

    root: Path
    hooks: Hooks
    readable: list[str]
    turns: list[TurnRecord]
    approver: Approver
    _stop_rounds: int
    _hooked: str
    models: dict[str, str]
    """A prompt file's text (as sent) -> its front matter's ``model``: that turn's model."""

    @property
    def settings(self) -> Settings:
        raise NotImplementedError

    async def interrupt(self) -> None:
        raise NotImplementedError

    def run_turn(self, instruction: str, files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        raise NotImplementedError

    async def expand_command(self, line: str, reserved: Collection[str] = ()) -> str | None:
        from spark_cli.session.actions.orchestrator import Orchestrator  # deferred: "/" lines

        found = await expand_line(line, self.root, Orchestrator(
            self.root, self.settings, self.approver, self.interrupt), reserved)
        if found is None:
            return None
        text = found[0].strip()  # as the TUI sends it: the key of its model
        if found[1]:
            self.models[text] = found[1]
        return text

    def hooks_status(self) -> list[str]:
        return self.hooks.lines()

    async def submit(self, instruction: str) -> str:
        """The message with its ``$skill`` bodies and what hooks add (``RequestError``: blocked)."""
        model = self.models.pop(instruction, "")
        self.hooks.secrets, skills = self.settings.provider.secrets.values, load_skills(self.root)
        self.readable.extend(set(outside_folders(skills, self.root)) - set(self.readable))
        text, blocked = await self.hooks.prompt(attach_skills(instruction, skills), not self.turns)
        if blocked is not None:
            raise RequestError("hook", f"a UserPromptSubmit hook blocked the message: {blocked}")
        self._hooked = text
        if model:
            self.models[text] = model
        return text

    async def _stop_hooks(self, files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """A Stop hook that exits 2 sends the model back to work (``max_stop_hooks`` a turn)."""
        back = None if self._stop_rounds >= self.settings.max_stop_hooks else \
            await self.hooks.stop(self._stop_rounds > 0)
        while self.hooks.warned:
            yield self.hooks.warned.pop(0)
        if back is not None:
            self._stop_rounds += 1
            async for event in self.run_turn(back, files):
                yield event
        self._stop_rounds = 0

"""The prompt's helpers: the completion popup (worked out after the key's own frame) and the
``@`` files a sent message attaches, as ``/add`` would."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from spark_cli.session.api import SessionApi
from spark_cli.session.config.presets import PRESETS
from spark_cli.session.extensions.prompt_files import load_commands
from spark_cli.tui.commands.context_files import ContextFiles, mentioned_paths
from spark_cli.tui.commands.slash import RESERVED, CommandInfo
from spark_cli.tui.output import Output
from spark_cli.tui.prompt.completion import Completer, Sources, model_names
from spark_cli.tui.prompt.popup import Popup
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.prompt.repo_paths import RepoPaths


class PromptAssist:
    """Completion and ``@`` files for ``prompt`` (see the module doc)."""

    def __init__(self, session: SessionApi, files: ContextFiles, out: Output, *,
                 spawn: Callable[[Coroutine[Any, Any, None]], None],
                 later: Callable[[Callable[[], None]], object]) -> None:
        self.session = session
        self.files = files
        self.out = out
        self.later = later
        """Runs a function after the next frame (``App.call_after_refresh``)."""
        self.paths = RepoPaths(session, spawn, self.update)
        self.completer = Completer(Sources(
            paths=self.paths.matcher, context=files.files, models=self._models,
            providers=lambda: list(PRESETS), extra=self._prompt_files))
        self._files: list[CommandInfo] = []
        self._prompt: Prompt | None = None
        self._popup: Popup | None = None

    def mount(self, prompt: Prompt, popup: Popup) -> None:
        """The widgets exist: the prompt asks the completer on its keys."""
        self._prompt, self._popup = prompt, popup
        prompt.completer = self.completer
        prompt.popup_changed = self.show
        prompt.complete_now = self.update

    def changed(self, text: str) -> None:
        """The prompt's text changed."""
        if self.completer.open or text[:1] == "/" or "@" in text:
            self.later(self.update)  # the key's own frame goes out first

    def update(self) -> None:
        """The completion for the prompt as it is now (a keystroke, the files listed)."""
        prompt = self._prompt
        if prompt is None:
            return
        row, column = prompt.cursor_location
        self.completer.update(prompt.document.get_line(row), column, first_line=row == 0,
                              text=prompt.text)
        self.show()

    def show(self) -> None:
        if self._popup is not None:
            self._popup.show(self.completer)

    def close(self) -> bool:
        """Esc: close the popup; True when it was open."""
        if not self.completer.open:
            return False
        self.completer.close()
        self.show()
        return True

    def attach(self, text: str) -> None:
        """Each ``@path`` in a sent message naming a repo file joins the files sent (``/add``)."""
        for path in mentioned_paths(text, self.session.root):
            if path in self.files.files():
                continue
            problem = self.files.add(path)
            self.out.note(f"✗ @{path}: {problem}" if problem else f"attached {path}",
                          "red" if problem else "green")

    def _prompt_files(self, fresh: bool) -> list[CommandInfo]:
        """The user's prompt files as commands, read again as a command starts (``/``)."""
        if fresh:
            self._files = [CommandInfo(c.name, c.argument_hint, f"broken: {c.problem}"
                                       if c.problem else c.description or "(prompt file)")
                           for c in load_commands(self.session.root, RESERVED)]
        return self._files

    def _models(self) -> list[str]:
        provider = self.session.settings.provider
        return model_names(provider.name, provider.model)

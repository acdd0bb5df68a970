"""What the prompt offers while you type: slash commands, their arguments, ``@`` files.

:class:`Completer` is pure state over the cursor's line: the :class:`Choice` list and the
selected one; nothing is offered when the only choice is what is already typed."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from spark_cli.record import record
from spark_cli.tui.commands.slash import CATALOG, CommandInfo
from spark_cli.tui.prompt.fuzzy import LIMIT, PathMatcher

_MENTION = re.compile(r"(?:^|\s)@(\S*)$")
LISTING = "listing the repo's files…"
NO_MATCH = "no file matches"


@record
class Choice:
    """One line of the popup; ``insert`` replaces columns ``start`` to the cursor."""

    label: str
    detail: str
    insert: str
    start: int
    runs: bool = False
    """Enter on it sends the line at once (a command without arguments)."""
    whole: bool = False
    """It replaces the whole prompt (a message from the history, Ctrl+R)."""


@record
class Sources:
    """Where the choices come from, asked at each keystroke that needs them."""

    paths: Callable[[], PathMatcher | None]
    """The repo's files (None while they are being listed)."""
    context: Callable[[], Sequence[str]]
    """The files in the context (``/drop``)."""
    models: Callable[[], Sequence[str]]
    providers: Callable[[], Sequence[str]]
    extra: Callable[[bool], Sequence[CommandInfo]] = lambda fresh: ()
    """The user's prompt files as commands (``fresh``: read them again)."""


class Completer:
    """The choices for the cursor's line: ``/na`` (commands), ``/model x`` and the other
    arguments, ``@part`` (the repo's files, fuzzy), and after ``search`` (Ctrl+R) the
    earlier messages holding the prompt's text, newest first."""

    def __init__(self, sources: Sources) -> None:
        self.sources = sources
        self.choices: list[Choice] = []
        self.selected = 0
        self.waiting = False
        """The repo's files are being listed (the popup says so)."""
        self.empty = False
        """Nothing matches what is typed: the popup stays open and says so (no layout)."""
        self._history: Sequence[str] | None = None  # Ctrl+R: the messages searched

    def search(self, history: Sequence[str], text: str) -> None:
        """Ctrl+R: offer the earlier messages that hold ``text``."""
        self._history = history
        self._search(text)

    def _search(self, text: str) -> None:
        assert self._history is not None
        low = text.strip().lower()
        found: list[Choice] = []
        for message in reversed(self._history):
            if low in message.lower() and all(c.insert != message for c in found):
                found.append(Choice(message.splitlines()[0][:200], "", message, 0, whole=True))
                if len(found) == LIMIT:
                    break
        self.choices, self.selected, self.waiting = found, 0, False

    @property
    def open(self) -> bool:
        return bool(self.choices) or self.waiting or self.empty

    @property
    def current(self) -> Choice | None:
        return self.choices[self.selected] if self.choices else None

    def close(self) -> None:
        self.choices, self.selected, self.waiting, self.empty = [], 0, False, False
        self._history = None

    def move(self, step: int) -> None:
        if self.choices:
            self.selected = (self.selected + step) % len(self.choices)

    def update(self, line: str, column: int, *, first_line: bool, text: str = "") -> None:
        """Recompute for ``line`` with the cursor at ``column`` (``text``: the whole prompt)."""
        if self._history is not None:
            self._search(text)
            return
        before = line[:column]
        self.waiting = self.empty = False
        choices = self._choices(before, first_line)
        if len(choices) == 1 and before.endswith(choices[0].insert.rstrip(" ")) \
                and choices[0].insert == before[choices[0].start:]:
            choices = []  # already typed in full
        previous = self.current
        self.choices = choices
        self.selected = 0
        if previous is not None:  # keep the selection while it is still offered
            for i, choice in enumerate(choices):
                if choice.label == previous.label:
                    self.selected = i

    def _choices(self, before: str, first_line: bool) -> list[Choice]:
        mention = _MENTION.search(before)
        if mention is not None:
            return self._paths(mention.group(1), mention.start(1) - 1, "@")
        if not first_line or not before.startswith("/") or "\n" in before:
            return []
        name, space, rest = before[1:].partition(" ")
        if not space:
            return _commands(name.lower(), self.sources.extra(not name))
        info = next((c for c in CATALOG if c.name == name.lower()), None)
        if info is None or not info.completes:
            return []
        word = rest.rsplit(" ", 1)[-1]
        start = len(before) - len(word)
        if info.completes == "paths":
            return self._paths(word, start, "")
        values = {"context": self.sources.context, "models": self.sources.models,
                  "providers": self.sources.providers}[info.completes]()
        return [Choice(v, "", v, start) for v in _ranked(values, word)][:LIMIT]

    def _paths(self, query: str, start: int, sigil: str) -> list[Choice]:
        matcher = self.sources.paths()
        if matcher is None:
            self.waiting = True
            return []
        found = [Choice(path, "", f"{sigil}{path} " if sigil else path, start)
                 for path in matcher.best(query)]
        self.empty = not found
        return found


BUNDLED_MODELS = ("spark-rules", "spark-lorem", "spark-deep", "gpt-5.3-codex-spark")
"""The bundled engine's models (``mock``): each names one of its brains."""
PROVIDER_MODELS = {"openai": ("gpt-5.3-codex-spark", "gpt-5.3-codex"),
                   "cerebras": ("gpt-oss-120b",)}


def model_names(provider: str, current: str, *more: str) -> list[str]:
    """The models ``/model`` offers: the one in use, then the provider's known ones."""
    known = BUNDLED_MODELS if provider == "mock" else PROVIDER_MODELS.get(provider, ())
    return list(dict.fromkeys(m for m in (current, *known, *more) if m))


def _commands(typed: str, extra: Sequence[CommandInfo] = ()) -> list[Choice]:
    by_name = {info.name: info for info in (*CATALOG, *extra)}
    return [_command_choice(by_name[name]) for name in _ranked(list(by_name), typed)]


def _command_choice(info: CommandInfo) -> Choice:
    label = f"/{info.name} {info.args}".rstrip()
    needs = bool(info.args) and not info.args.startswith("[")  # a required argument
    return Choice(label, info.summary, f"/{info.name} " if needs else f"/{info.name}", 0,
                  runs=not needs)


def _ranked(values: Sequence[str], typed: str) -> list[str]:
    low = typed.lower()
    first = [v for v in values if v.lower().startswith(low)]
    return first + [v for v in values if low in v.lower() and v not in first]

"""The deep track inside the TUI (opened after the first frame): each task's state once in the
transcript, the HUD's deep part, the routing hint, the quit guard; ``/deep`` is
:mod:`.deep_commands`."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_cli.session.api import Connector, SessionApi
from spark_cli.session.config.settings import Settings
from spark_cli.session.events import TurnCompleted, TurnFailed
from spark_cli.tui.output import Busy, Output

if TYPE_CHECKING:
    from spark_cli.session.deep.task import DeepTask
    from spark_cli.session.deep.track import DeepTrack
    from spark_cli.session.spend.usage import Usage

QUIT_CONFIRM_S = 3.0


class DeepController:
    """The deep track of one app (see the module doc); ``track`` is None while it is off."""

    def __init__(self, session: SessionApi, connect: Connector, out: Output, *,
                 hud: Callable[[str], None], files: Callable[[], tuple[str, ...]],
                 busy: Busy, problem: str = "no deep provider is configured") -> None:
        self.session = session
        self.connect = connect
        self.out = out
        self.hud = hud
        """Told the HUD's deep part whenever a task moves."""
        self.files = files
        """The files every turn sends (a deep task starts with them)."""
        self.busy = busy
        self.problem = problem
        """Why the track is off."""
        self.track: DeepTrack | None = None
        self._states: dict[int, str] = {}  # each task's last announced state
        self._quit_asked = 0.0
        self._resuming = False

    def open(self, settings: Settings | None,
             load: Callable[[], Settings] | None = None) -> None:
        """Make the track from ``settings`` or ``load()`` (a bad ``[deep]``: ``problem``)."""
        if settings is None and load is not None:
            try:
                settings = load()
            except (ValueError, KeyError, TypeError, OSError) as exc:
                self.problem = str(exc)
        if settings is None:
            return
        from spark_cli.session.deep.track import DeepTrack  # deferred: TUI launch

        self.track = track = DeepTrack(self.session.root, settings, self.connect, self.changed,
                                       fast=self.session.settings)
        self._resuming = True  # each resumed task is said once, below, not by changed()
        try:
            resumed = track.resume()
        finally:
            self._resuming = False
        for task in resumed:
            self._states[task.number] = task.state
            self.out.note(f"deep #{task.number} from an earlier session ({task.state}): "
                          f"{task.task[:80]} — /deep show {task.number} reviews it", "magenta")
        for problem in track.problems:
            self.out.note(problem, "yellow")

    def start(self, text: str) -> None:
        """Hand ``text`` to the deep track (``/deep TASK``, Ctrl+G)."""
        track = self.track
        if track is None:
            self.out.note(f"the deep track is off: {self.problem}", "yellow")
            return
        task = track.start(text, files=self.files())
        if task.state == "failed":
            return  # changed() said why
        model = track.settings.provider
        self.out.note(f"deep #{task.number} started on {model.name} · {model.model}: it works "
                      "on a snapshot; keep going here (/deep lists, /deep show "
                      f"{task.number} reviews when it is done)", "bold magenta")

    def changed(self, task: DeepTask) -> None:
        """A task moved: the transcript says so once per state; the HUD shows every task."""
        before = self._states.get(task.number)
        self._states[task.number] = task.state
        if before is None and task.note:  # e.g. "runs on the bundled engine", once
            self.out.note(task.note, "magenta")
        if task.state != before and not self._resuming:
            self._announce(task)
        if self.track is not None:
            self.hud(deep_hud(self.track.tasks))

    def usages(self) -> list[tuple[int, Usage]]:
        """Each deep task's usage once its turn ended, by task number (``/cost``)."""
        tasks = self.track.tasks if self.track is not None else []
        return [(task.number, event.usage) for task in tasks for event in task.events
                if isinstance(event, TurnCompleted | TurnFailed) and event.usage is not None]

    def hint(self, text: str) -> str | None:
        """The line above the prompt when the draft looks like deep work (never routed)."""
        if self.track is None or not text.strip() or text.lstrip().startswith("/"):
            return None
        from spark_cli.session.deep.routing import suggest_deep  # deferred: TUI launch

        report = self.session.context  # the next request carries at least this much again
        used = report.used if report is not None else None
        line = suggest_deep(text, used, self.session.settings.context_window)
        return f"{line} (Ctrl+G sends it to the deep track)" if line else None

    def may_quit(self) -> bool:
        """Ctrl+Q: True to quit now; while tasks run, only when asked twice within 3 s."""
        active = self.track.active if self.track is not None else []
        now = time.monotonic()
        if not active or now - self._quit_asked <= QUIT_CONFIRM_S:
            return True
        numbers = ", ".join(f"#{t.number}" for t in active)
        self.out.note(f"deep tasks are running ({numbers}): Ctrl+Q again quits and stops them "
                      "(their snapshots are removed; your repo is untouched)", "bold yellow")
        self._quit_asked = now
        return False

    async def aclose(self) -> None:
        if self.track is not None:
            await self.track.aclose()

    def _announce(self, task: DeepTask) -> None:
        if task.state == "done" and task.change is not None:
            files = len(task.change.files)
            hunks = sum(len(f.hunks) for f in task.change.files)
            if not hunks:
                self.out.note(f"deep #{task.number} done: it changed nothing (/deep show "
                              f"{task.number} for its answer)", "magenta")
                return
            self.out.note(f"deep #{task.number} done: {hunks} hunk(s) in {files} file(s) — "
                          f"/deep show {task.number} to review, /deep apply {task.number} to "
                          "merge", "bold magenta")
        elif task.state == "failed":
            self.out.note(f"✗ deep #{task.number} failed: {task.error}", "bold red")


def deep_hud(tasks: list[DeepTask]) -> str:
    """The HUD's deep part: each task still working or waiting for review."""
    shown = [t for t in tasks if t.active or t.state == "done"]
    return "deep " + " · ".join(f"#{t.number} {t.state} {t.elapsed:.0f}s {t.output_tokens:,} tok"
                                for t in shown) if shown else ""

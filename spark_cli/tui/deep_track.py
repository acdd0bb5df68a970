"""The deep track inside the app: opened after the first frame, its tasks on the HUD and in
the transcript, the routing hint above the prompt, and the quit guard while tasks run.

The commands themselves (``/deep …``) are ``spark_cli.tui.deep_commands``.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.widgets import Static

if TYPE_CHECKING:
    from spark_cli.session.deep import DeepTask
    from spark_cli.tui.app import SparkApp

QUIT_CONFIRM_S = 3.0


@dataclass(frozen=True, slots=True)
class _Needs:
    """What routing reads of a request's context: its tokens."""

    tokens: int


def open_track(app: SparkApp) -> None:
    """Make the deep track from the setup (its settings read now); offer saved results."""
    setup = app.setup
    deep = setup.deep_settings
    if deep is None and setup.load_deep is not None:
        try:
            deep = setup.load_deep()
        except (ValueError, KeyError, TypeError, OSError) as exc:  # a bad [deep] table
            app.deep_problem = str(exc)
    if deep is not None:
        from spark_cli.session.deep import DeepTrack

        app.deep = DeepTrack(app.session.root, deep, setup.connect, lambda t: changed(app, t),
                             fast=app.session.settings)
    if app.deep is None:
        return
    for task in app.deep.resume():
        app.note(f"deep #{task.number} from an earlier session is ready: /deep show "
                  f"{task.number}", "magenta")
    for problem in app.deep.problems:
        app.note(problem, "yellow")


def changed(app: SparkApp, task: DeepTask) -> None:
    """A task moved: the transcript says so once per state; the HUD shows every task."""
    states = app.deep_states
    before = states.get(task.number)
    states[task.number] = task.state
    announce(app, task, before)
    if app.deep is not None:
        app.hud_state.deep = deep_hud(app.deep.tasks)
    if app.painter is not None:
        app._show_hud()


def route_hint(app: SparkApp, text: str) -> None:
    """One line above the prompt when the draft looks like deep work (never routed)."""
    from spark_cli.session.deep import suggest_deep

    hint = app.query_one("#hint", Static)
    report = app.session.context  # the next request carries at least this much again
    needs = _Needs(report.used) if report is not None else None
    line = suggest_deep(text, needs, app.session.settings.context_window) \
        if text.strip() and not text.lstrip().startswith("/") else None
    hint.update(f"{line} (Ctrl+G sends it to the deep track)" if line else "")
    hint.display = bool(line)


def quit_asked(app: SparkApp, last: float) -> float | None:
    """Ctrl+Q: None to quit now; while tasks run, the time it asked (a second Ctrl+Q within
    ``QUIT_CONFIRM_S`` quits)."""
    active = app.deep.active if app.deep is not None else []
    now = time.monotonic()
    if not active or now - last <= QUIT_CONFIRM_S:
        return None
    numbers = ", ".join(f"#{t.number}" for t in active)
    app.note(f"deep tasks are running ({numbers}): Ctrl+Q again quits and stops them "
              "(their snapshots are removed; your repo is untouched)", "bold yellow")
    return now


def deep_hud(tasks: list[DeepTask]) -> str:
    """The HUD's deep part: each task still working or waiting for review."""
    shown = [t for t in tasks if t.active or t.state == "done"]
    return "deep " + " · ".join(f"#{t.number} {t.state} {t.elapsed:.0f}s {t.output_tokens:,} tok"
                                for t in shown) if shown else ""


def announce(app: SparkApp, task: DeepTask, before: str | None) -> None:
    """A task changed state: say so in the transcript (once per state)."""
    if task.state == before:
        return
    if before is None and task.note:
        app.note(task.note, "magenta")
    if task.state == "done" and task.change is not None:
        files = len(task.change.files)
        hunks = sum(len(f.hunks) for f in task.change.files)
        if not hunks:
            app.note(f"deep #{task.number} done: it changed nothing (/deep show {task.number} "
                      "for its answer)", "magenta")
            return
        app.note(f"deep #{task.number} done: {hunks} hunk(s) in {files} file(s) — /deep show "
                  f"{task.number} to review, /deep apply {task.number} to merge",
                  "bold magenta")
    elif task.state == "failed":
        app.note(f"✗ deep #{task.number} failed: {task.error}", "bold red")

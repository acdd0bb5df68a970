"""`/deep`: ``/deep TASK`` (Ctrl+G) runs a task on a snapshot; ``/deep`` lists, ``show N``
reviews hunk by hunk, ``apply N [all | PATH… | PATH:H…]`` merges three-way as one undo batch,
``drop N``, ``cancel N``. Review and apply run in a worker thread, never on the loop."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from rich.text import Text

from spark_cli.session.deep.change import ALL, HunkStatus, Selection
from spark_cli.session.deep.task import DeepTask
from spark_cli.session.events import EditLanded, EditRefused, ProseDelta, TurnFailed
from spark_cli.tui.transcript.edit_view import diff_syntax

if TYPE_CHECKING:
    from spark_cli.tui.deep.deep_view import DeepController

USAGE = ("usage: /deep TASK · /deep · /deep show N · /deep apply N [all | PATH… | PATH:H…] · "
         "/deep drop N · /deep cancel N")
_STATUS_STYLE = {"clean": "green", "conflict": "bold red", "present": "dim", "refused": "red"}


async def deep_command(deep: DeepController, args: list[str]) -> None:
    """``/deep [verb] …`` against ``deep``."""
    if deep.track is None:
        deep.out.note(f"the deep track is off: {deep.problem}", "yellow")
        return
    if not args:
        _list(deep)
        return
    verb, rest = args[0], args[1:]
    if verb in ("show", "apply", "drop", "cancel"):
        task = _task(deep, rest)
        if task is None:
            return
        await _VERBS[verb](deep, task, rest[1:])
        return
    deep.start(" ".join(args))


def _task(deep: DeepController, rest: list[str]) -> DeepTask | None:
    track = deep.track
    if track is None or not rest or not rest[0].isdigit():
        deep.out.note(USAGE, "yellow")
        return None
    task = track.task(int(rest[0]))
    if task is None:
        numbers = ", ".join(f"#{t.number}" for t in track.tasks) or "none"
        deep.out.note(f"no deep task #{rest[0]} (there are: {numbers})", "yellow")
    return task


def _list(deep: DeepController) -> None:
    tasks = deep.track.tasks if deep.track is not None else []
    if not tasks:
        deep.out.note("no deep tasks: /deep TASK (or Ctrl+G on the prompt) starts one")
    for task in tasks:
        deep.out.note(task.summary)


async def _show(deep: DeepController, task: DeepTask, rest: list[str]) -> None:
    deep.out.note(f"deep #{task.number}: {task.task}", "bold magenta")
    prose = "".join(e.text for e in task.events if isinstance(e, ProseDelta)).strip()
    if prose:
        deep.out.note(prose[-4000:], "")
    for event in task.events:
        if isinstance(event, EditLanded):
            deep.out.note(f"  ✓ {event.outcome.message} (in its snapshot)", "green")
        elif isinstance(event, EditRefused):
            deep.out.note(f"  ✗ {event.outcome.message}", "red")
        elif isinstance(event, TurnFailed):
            deep.out.note(f"  ✗ {event.message}", "red")
    deep.out.note(task.summary, "bold")
    if task.state != "done" or task.change is None or deep.track is None:
        return
    if not task.change.files:
        return
    statuses = await asyncio.to_thread(deep.track.review, task.number)
    _review(deep, task, statuses)


def _review(deep: DeepController, task: DeepTask, statuses: tuple[HunkStatus, ...]) -> None:
    assert task.change is not None
    by_hunk = {(s.path, s.index): s for s in statuses}
    for change in task.change.files:
        deep.out.note(f"{change.path} ({change.kind})", "bold")
        for hunk in change.hunks:
            status = by_hunk.get((change.path, hunk.index))
            state = status.state if status is not None else "?"
            detail = f": {status.detail}" if status is not None and status.detail else ""
            deep.out.write(Text(f"  {change.path}:{hunk.index} {state}{detail}",
                           style=_STATUS_STYLE.get(state, "")))
            deep.out.write(diff_syntax(hunk.diff))
    clean = sum(s.state == "clean" for s in statuses)
    deep.out.note(f"{clean} of {len(statuses)} hunk(s) apply cleanly: /deep apply {task.number} "
              f"(all), /deep apply {task.number} PATH or PATH:H, /deep drop {task.number}")


def selection(rest: list[str]) -> Selection | str:
    """``all`` / nothing, paths, or ``PATH:H`` pairs; or what is wrong with them."""
    if not rest or rest == ["all"]:
        return ALL
    files: list[str] = []
    hunks: list[tuple[str, int]] = []
    for item in rest:
        path, colon, index = item.rpartition(":")
        if colon and index.isdigit() and path:
            hunks.append((path, int(index)))
        else:
            files.append(item)
    if files and hunks:
        return "give whole files or PATH:H hunks, not both"
    return Selection.of_hunks(*hunks) if hunks else Selection.of_files(*files)


async def _apply(deep: DeepController, task: DeepTask, rest: list[str]) -> None:
    if deep.track is None or task.state != "done":
        deep.out.note(f"deep #{task.number} is {task.state}: nothing to apply", "yellow")
        return
    if deep.busy():
        deep.out.note("a turn is running: Esc first (its edits and the merge would race)", "yellow")
        return
    select = selection(rest)
    if isinstance(select, str):
        deep.out.note(select, "yellow")
        return
    report = await asyncio.to_thread(deep.track.apply, task.number, select)
    if report is None:
        deep.out.note(f"deep #{task.number} has no change to apply", "yellow")
        return
    deep.out.note(f"deep #{task.number}: {report.message}",
              "bold green" if report.applied and not report.refused else "yellow")
    for refused in report.refused:
        deep.out.note(f"  ✗ {refused.path}:{refused.index} {refused.state}: {refused.detail}",
                  "red")
    if report.applied:
        deep.session.files_changed()  # the model's view of these files is stale


async def _drop(deep: DeepController, task: DeepTask, rest: list[str]) -> None:
    if deep.track is not None and deep.track.drop(task.number):
        deep.out.note(f"deep #{task.number} dropped (nothing was written)")
    else:
        deep.out.note(f"deep #{task.number} is {task.state}: only a done task can be dropped",
                  "yellow")


async def _cancel(deep: DeepController, task: DeepTask, rest: list[str]) -> None:
    if deep.track is not None and await deep.track.cancel(task.number):
        deep.out.note(f"deep #{task.number} cancelled (its snapshot is gone; the repo is as "
                      "it was)")
    else:
        deep.out.note(f"deep #{task.number} is {task.state}: nothing to cancel", "yellow")


_VERBS = {"show": _show, "apply": _apply, "drop": _drop, "cancel": _cancel}

"""The deep track: deep tasks running in the background beside the fast session, each as
an asyncio task on its own snapshot and channel, and finished tasks' changes saved as one
JSON file each in ``<state folder>/deep/`` (hunks recomputed on load; an unreadable file
is skipped, never deleted) so a restarted spark offers them again."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.session.api import Connector
from spark_cli.session.config.settings import Settings
from spark_cli.session.deep.change import ALL, ChangedFile, HunkStatus, Selection, file_change
from spark_cli.session.deep.deep_run import RunSpec, run_deep
from spark_cli.session.deep.deep_settings import bundled_notice
from spark_cli.session.deep.task import ApplyReport, DeepChange, DeepTask

FOLDER = "deep"
VERSION = 1
KIND = "deep_task"


def deep_folder(root: Path, state_dir: Path | None = None) -> Path:
    """``<the repo's state folder>/deep`` (``state_dir``: that repo folder, for tests)."""
    from spark_cli.session.workspace.store import SessionStore  # deferred: TUI launch

    return SessionStore(root, state_dir).folder / FOLDER


def save_finished(folder: Path, task: DeepTask) -> str:
    change = task.change
    assert change is not None
    body = {"version": VERSION, "kind": KIND, "task": task.task, "started_at": task.started_at,
            "ended_at": task.ended_at, "output_tokens": task.output_tokens,
            "label": change.label,
            "files": [{"path": f.path, "base": f.base, "theirs": f.theirs} for f in change.files],
            "skipped": [list(s) for s in change.skipped]}
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = task.saved_as or f"{time.strftime('%Y%m%dT%H%M%S', time.gmtime())}-" \
                            f"{os.urandom(3).hex()}"
    write_atomic(folder / f"{name}.json", json.dumps(body).encode())
    return name


def forget(folder: Path, saved_as: str | None) -> None:
    if saved_as:
        with contextlib.suppress(OSError):
            (folder / f"{saved_as}.json").unlink()


def _parse(raw: Any) -> DeepTask:
    if not isinstance(raw, dict) or raw.get("kind") != KIND or raw.get("version") != VERSION:
        raise ValueError("not a saved deep task")
    files: list[ChangedFile] = []
    for entry in raw["files"]:
        base, theirs = entry["base"], entry["theirs"]
        if not (isinstance(entry["path"], str) and all(x is None or isinstance(x, str)
                                                       for x in (base, theirs))):
            raise ValueError("bad file entry")
        change = file_change(entry["path"], base, theirs)
        if change is not None:
            files.append(change)
    skipped = tuple((str(p), str(why)) for p, why in raw.get("skipped", []))
    task = DeepTask(0, str(raw["task"]), "done", float(raw["started_at"]),
                    float(raw["ended_at"]) if raw.get("ended_at") is not None else None,
                    int(raw.get("output_tokens", 0)))
    task.change = DeepChange(tuple(files), skipped, str(raw.get("label") or "deep task"))
    return task


def load_saved(folder: Path) -> tuple[list[DeepTask], list[str]]:
    """The saved tasks (oldest first, state ``done``, numbered by the track) and problems."""
    tasks: list[DeepTask] = []
    problems: list[str] = []
    try:
        names = sorted(p for p in folder.iterdir() if p.suffix == ".json")
    except OSError:
        return [], []
    for path in names:
        try:
            task = _parse(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, KeyError, TypeError) as exc:
            problems.append(f"{path}: not a saved deep task ({exc}); ignored")
            continue
        task.saved_as = path.stem
        tasks.append(task)
    tasks.sort(key=lambda t: t.started_at)
    return tasks, problems


class DeepTrack:
    """Deep tasks of one repo: start, cancel, review, apply, drop, resume; ``aclose`` on quit."""

    def __init__(self, root: Path, settings: Settings, connect: Connector,
                 on_change: Callable[[DeepTask], None], *, state_dir: Path | None = None,
                 snapshot_dir: Path | None = None, fast: Settings | None = None) -> None:
        """``state_dir``: the repo's state folder; ``fast``: the fast track's settings."""
        self.root = Path(root).resolve()
        self.settings = settings
        self.on_change = on_change
        self._spec = RunSpec(self.root, settings, connect, self._changed, snapshot_dir)
        self._folder = deep_folder(self.root, state_dir)
        self._tasks: list[DeepTask] = []
        self._running: dict[int, asyncio.Task[None]] = {}
        self._resumed = False
        self.problems: list[str] = []  # saved results that could not be read or written
        self.notice = bundled_notice(settings, fast) if fast is not None else None  # said once

    @property
    def tasks(self) -> list[DeepTask]:
        return list(self._tasks)

    @property
    def active(self) -> list[DeepTask]:
        """The tasks still working (what quitting should ask about)."""
        return [t for t in self._tasks if t.active]

    def task(self, number: int) -> DeepTask | None:
        return next((t for t in self._tasks if t.number == number), None)

    def _next_number(self) -> int:
        return max((t.number for t in self._tasks), default=0) + 1

    def _changed(self, task: DeepTask) -> None:
        if task.state == "done" and task.change is not None and task.saved_as is None \
                and not task.change.empty:
            try:
                task.saved_as = save_finished(self._folder, task)
            except OSError as exc:
                self.problems.append(f"deep #{task.number}: its change lives only in memory "
                                     f"(cannot save to {self._folder}: {exc.strerror or exc})")
        self.on_change(task)

    def start(self, task: str, files: Sequence[str] = ()) -> DeepTask:
        """Hand ``task`` to the deep track (``files``: the context set); returns at once."""
        deep = DeepTask(self._next_number(), task.strip())
        deep.note, self.notice = self.notice, None
        self._tasks.append(deep)
        if not deep.task:
            deep.finish("failed", "deep track: the task is empty: say what to do, "
                                  "e.g. /deep rename load to read across the package")
            self.on_change(deep)
            return deep
        running = asyncio.get_running_loop().create_task(
            run_deep(deep, self._spec, tuple(files)), name=f"spark-deep-{deep.number}")
        self._running[deep.number] = running
        running.add_done_callback(lambda _: self._ended(deep))
        self.on_change(deep)
        return deep

    def _ended(self, deep: DeepTask) -> None:
        self._running.pop(deep.number, None)
        if deep.active:  # cancelled before its coroutine began: nothing to clean up
            deep.finish("cancelled")
            self.on_change(deep)

    async def cancel(self, number: int) -> bool:
        """Stop a running task (its snapshot is removed); False when none such runs."""
        running = self._running.get(number)
        if running is None or running.done():
            return False
        running.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await running
        return True

    def review(self, number: int) -> tuple[HunkStatus, ...]:
        """Per hunk of a done task's change against the working tree now (() otherwise)."""
        task = self.task(number)
        if task is None or task.change is None or task.state != "done":
            return ()
        return task.change.review(self.root)

    def apply(self, number: int, select: Selection = ALL) -> ApplyReport | None:
        """Merge the selected hunks of a done task (one undo batch); None without a change."""
        task = self.task(number)
        if task is None or task.change is None or task.state != "done":
            return None
        report = task.change.apply(self.root, select)
        if all(s.state == "present" for s in task.change.review(self.root)):
            task.finish("applied")
            forget(self._folder, task.saved_as)
        self.on_change(task)
        return report

    def drop(self, number: int) -> bool:
        task = self.task(number)
        if task is None or task.state != "done":
            return False
        task.state = "dropped"
        forget(self._folder, task.saved_as)
        self.on_change(task)
        return True

    def resume(self) -> list[DeepTask]:
        """The done tasks an earlier run saved, added once and renumbered after these."""
        if self._resumed:
            return []
        self._resumed = True
        loaded, problems = load_saved(self._folder)
        self.problems.extend(problems)
        for task in loaded:
            task.number = self._next_number()
            self._tasks.append(task)
            self.on_change(task)
        return loaded

    async def aclose(self) -> None:
        running = [t for t in self._running.values() if not t.done()]
        for task in running:
            task.cancel()
        for task in running:
            with contextlib.suppress(asyncio.CancelledError):
                await task

"""Finished deep tasks' changes on disk (one JSON file each in ``<state folder>/deep/``), so
a restarted spark can offer them again; hunks are recomputed on load, and a file that
cannot be read is skipped, never deleted."""

from __future__ import annotations

import contextlib
import json
import os
import time
from pathlib import Path
from typing import Any

from spark_cli.session.deep.change import ChangedFile, file_change
from spark_cli.session.deep.disk import write_atomic
from spark_cli.session.deep.task import DeepChange, DeepTask

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

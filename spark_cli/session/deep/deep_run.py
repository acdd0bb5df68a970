"""Running one deep task: a snapshot, a normal Session rooted in it, the change collected;
the snapshot is removed whatever happens, and every fault is one line in ``error``."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    ChannelEvent,
    TextDelta,
    TurnRequest,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.api import Connector
from spark_cli.session.config.settings import Settings
from spark_cli.session.deep.change import ChangedFile, file_change
from spark_cli.session.deep.snapshot import Snapshot, SnapshotError, take_snapshot
from spark_cli.session.deep.task import DeepChange, DeepState, DeepTask, NotText, decode_text
from spark_cli.session.events import TurnCompleted, TurnFailed

NOTIFY_EVERY_S = 0.1


@dataclass(slots=True)
class RunSpec:
    """What a deep task runs with (the track's, shared by its tasks)."""

    root: Path
    settings: Settings
    connect: Connector
    notify: Callable[[DeepTask], None]
    snapshot_dir: Path | None = None


class _Counting:
    """A channel that counts the answer's tokens as they stream; all else is the inner one's."""

    def __init__(self, inner: Channel, task: DeepTask, notify: Callable[[], None]) -> None:
        self.inner, self.task, self.notify = inner, task, notify

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    async def stream(self, request: TurnRequest) -> AsyncGenerator[ChannelEvent, None]:
        async with contextlib.aclosing(self.inner.stream(request)) as events:
            async for event in events:
                if type(event) is TextDelta:
                    self.task.output_tokens += count_tokens(event.text)
                    self.notify()
                yield event


def collect_change(snap: Snapshot, label: str) -> DeepChange:
    """The snapshot's change against its start (blocking: run in a thread)."""
    changed, skipped = snap.changes()
    files: list[ChangedFile] = []
    skipped = list(skipped)
    for rel, before, after in changed:
        try:
            base, theirs = decode_text(before, rel), decode_text(after, rel)
        except NotText as exc:
            skipped.append((rel, f"{exc}: not merged"))
            continue
        change = file_change(rel, base, theirs)
        if change is not None:
            files.append(change)
    return DeepChange(tuple(files), tuple(skipped), label)


def _provider(settings: Settings) -> str:
    p = settings.provider
    return f"deep provider {p.name!r} ({p.model})"


async def run_deep(task: DeepTask, spec: RunSpec, given: Sequence[str] = ()) -> None:
    """Run ``task`` to its end state; never raises but ``CancelledError`` (state cancelled)."""
    settings = spec.settings
    last = 0.0

    def changed(force: bool = False) -> None:
        nonlocal last
        now = time.monotonic()
        if force or now - last >= NOTIFY_EVERY_S:
            last = now
            spec.notify(task)

    if settings.problems:
        task.finish("failed", settings.problems[0])
        changed(True)
        return
    snap: Snapshot | None = None
    end: tuple[DeepState, str | None] = ("failed", "deep track: stopped")
    try:
        snap = await _snapshot(spec)
        task.state = "running"
        changed(True)
        end = await _turn(task, spec, snap, given, changed)
        if end[0] == "done":
            task.change = await asyncio.to_thread(collect_change, snap,
                                                  f"deep #{task.number}: {_label(task.task)}")
    except asyncio.CancelledError:
        end = ("cancelled", None)
        raise
    except SnapshotError as exc:
        end = ("failed", f"deep track: no snapshot of the repo: {exc}")
    except ChannelError as exc:
        end = ("failed", f"{_provider(settings)}: {exc.message}")
    except OSError as exc:
        end = ("failed", f"deep track: {exc.strerror or exc}")
    except Exception as exc:  # the boundary: a deep task never takes the fast track down
        end = ("failed", f"deep track: {type(exc).__name__}: {exc}")
    finally:
        if snap is not None:
            await _remove(snap)  # before the end state shows: "done" means cleaned up
        task.finish(*end)
        changed(True)


async def _turn(task: DeepTask, spec: RunSpec, snap: Snapshot, given: Sequence[str],
                changed: Callable[..., None]) -> tuple[DeepState, str | None]:
    """Run the deep session's one turn in the snapshot; the end state it comes to."""
    from spark_cli.session.conversation import Session  # deferred: TUI launch

    settings = spec.settings
    files = list(given)
    session = Session(None, snap.root, settings)
    failed = session.prepare(task.task, files)
    if session.context is not None:
        task.files = tuple(f.path for f in session.context.files)
    if failed is not None:
        task.events.append(failed)
        return "failed", f"deep track: {failed.message}"
    end: tuple[DeepState, str | None] = ("failed", "deep track: the turn ended without a result")
    async with spec.connect(settings) as channel:
        session.attach(_Counting(channel, task, changed))
        async for event in session.run_turn(task.task, files):
            task.events.append(event)
            match event:
                case TurnFailed(message=message):
                    end = ("failed", f"{_provider(settings)}: {message}")
                case TurnCompleted(status="cancelled"):
                    end = ("cancelled", None)
                case TurnCompleted(output_tokens=tokens):
                    task.output_tokens = tokens
                    end = ("done", None)
            changed()
    return end


async def _snapshot(spec: RunSpec) -> Snapshot:
    """Take the snapshot in a thread; cancelled meanwhile, wait for it and remove it."""
    making = asyncio.ensure_future(asyncio.to_thread(take_snapshot, spec.root,
                                                     parent=spec.snapshot_dir))
    try:
        return await asyncio.shield(making)
    except asyncio.CancelledError:
        with contextlib.suppress(SnapshotError, OSError):
            await _remove(await making)
        raise


async def _remove(snap: Snapshot) -> None:
    """Remove the snapshot in a thread; if this task is cancelled meanwhile, still wait."""
    removal = asyncio.ensure_future(asyncio.to_thread(snap.remove))
    try:
        await asyncio.shield(removal)
    except asyncio.CancelledError:
        await removal
        raise


def _label(task: str) -> str:
    head = task.strip().splitlines()[0] if task.strip() else "deep task"
    return head[:60]

"""`spark`: the interactive session — type while it streams, Esc, redirect, queue, undo, /test.

Layout (app.tcss): the transcript, the queue (when it holds anything), the
prompt, the HUD. The prompt has focus from the first frame and never loses
it. The app talks to the session core only: an ``Interaction`` over a
``SessionApi``; the channel comes from the ``Connector`` the CLI hands in,
opened in the background so the prompt is ready (and keeps every key typed)
before the provider is; the first turn waits for it.

Keys: Enter sends (while streaming: redirects), Tab queues, Esc interrupts
(a turn, or a running /test), Ctrl+Z undoes the last batch of edits, Up/Down
walk the prompt history, Ctrl+C interrupts (quits when idle with an empty
prompt), Ctrl+Q quits.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from spark_cli.session.api import ChannelError, Connector, SessionApi
from spark_cli.session.events import TurnFailed
from spark_cli.session.interaction import Interaction, QueueChanged, TurnStarted
from spark_cli.session.settings import Settings
from spark_cli.tui.hud import Hud, HudState
from spark_cli.tui.painter import Painter
from spark_cli.tui.prompt import Prompt
from spark_cli.tui.transcript import Transcript

FRAME_S = 1 / 30
HELP = ("Enter sends · while it streams Enter redirects, Tab queues, Esc stops · "
        "Ctrl+Z undoes the last edits · /help lists commands")


@dataclass
class TuiSetup:
    """What the CLI hands the app: the session, how to connect, where state lives."""

    session: SessionApi
    connect: Connector
    draft: str = ""
    queue: tuple[str, ...] = ()
    sent_prompts: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    """Lines to show at start (restored state, problems reading it)."""


class SparkApp(App[int]):
    """The interactive session (see the module doc)."""

    CSS_PATH = "app.tcss"
    TITLE = "spark"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Stop", priority=True),
        Binding("ctrl+z", "undo", "Undo edits", priority=True),
        Binding("ctrl+c", "ctrl_c", "Stop / quit", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
    ]

    def __init__(self, setup: TuiSetup, **kwargs: object) -> None:
        super().__init__(**kwargs)  # type: ignore[arg-type]  # App's keyword arguments
        self.setup = setup
        self.session = setup.session
        settings = self.session.settings
        self.hud_state = HudState(provider=settings.provider.name, model=settings.provider.model,
                                  channel=settings.provider.kind,
                                  context_window=settings.context_window)
        self.interaction = Interaction(self.session, self._sink, queue=setup.queue,
                                       ready=self._ensure_connected, files=self._files)
        self.files: list[str] = []
        """The context set (/add, /drop)."""
        self.painter: Painter | None = None
        self._connected: asyncio.Future[None] | None = None
        self._channels = contextlib.AsyncExitStack()
        self._frames: object = None
        self.background: set[asyncio.Task[None]] = set()
        self.sent_text = ""
        self.test_task: asyncio.Task[None] | None = None
        """A running /test (Esc cancels it)."""

    # ---- layout ----

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        yield Static("", id="queue", markup=False)
        yield Prompt(self.setup.sent_prompts, id="prompt")
        yield Hud(id="hud")

    def on_mount(self) -> None:
        prompt = self.query_one(Prompt)
        prompt.focus()
        if self.setup.draft:
            prompt.load_text(self.setup.draft)
            prompt.move_cursor(prompt.document.end)
        self.painter = Painter(self.query_one(Transcript), self.query_one(Hud), self.hud_state,
                               lambda: self.session.marks, self._queue_changed)
        self._frames = self.set_interval(FRAME_S, self._frame, pause=True)
        settings = self.session.settings
        self.painter.note(f"spark · {settings.provider.name} · {settings.provider.model} · "
                          f"{self.session.root}", "bold")
        self.painter.note(HELP)
        for line in self.setup.notes:
            self.painter.note(line, "yellow")
        if self.setup.queue:
            self._queue_changed(QueueChanged(tuple(self.setup.queue), True))
        self.query_one(Hud).show(self.hud_state, time.monotonic())
        self.spawn(self._ensure_connected())

    # ---- connection ----

    async def _ensure_connected(self) -> None:
        """Connect once (again after a failure); every turn awaits this first."""
        if self._connected is None or (self._connected.done() and
                                       self._connected.exception() is not None):
            self._connected = asyncio.get_running_loop().create_future()
            connected = self._connected
            try:
                await self._connect()
            except (ChannelError, OSError) as exc:
                error = exc if isinstance(exc, ChannelError) else ChannelError(
                    "connection", f"could not start or reach the provider: {exc}")
                connected.set_exception(error)
                connected.exception()  # retrieved: a later turn asks again
                self.hud_state.state = "offline"
                self._note(f"✗ {error.message}", "bold red")
                raise error from None
            connected.set_result(None)
            self.hud_state.state = "ready"
            self.query_one(Hud).show(self.hud_state, time.monotonic())
            return
        await asyncio.shield(self._connected)

    async def _connect(self) -> None:
        settings: Settings = self.session.settings
        channel = await self._channels.enter_async_context(self.setup.connect(settings))
        self.session.channel = channel
        await self.session.warm()

    # ---- keys ----

    async def on_prompt_sent(self, message: Prompt.Sent) -> None:
        text = message.text
        if text.strip().startswith("/"):
            from spark_cli.tui.commands import run_command

            await run_command(self, text.strip())
            return
        if text.strip():
            self.query_one(Prompt).remember(text)
            self.sent_text = text
        self.interaction.submit(text)

    def on_prompt_queue_asked(self, message: Prompt.QueueAsked) -> None:
        self.interaction.enqueue(message.text)

    async def action_interrupt(self) -> None:
        if self.interaction.busy and self.painter is not None:
            self.painter.mute()
            await self.interaction.interrupt()
            return
        from spark_cli.tui.commands import cancel_running

        cancel_running(self)

    async def action_undo(self) -> None:
        from spark_cli.tui.commands import run_command

        await run_command(self, "/undo")

    async def action_ctrl_c(self) -> None:
        prompt = self.query_one(Prompt)
        if self.interaction.busy:
            await self.action_interrupt()
        elif prompt.text:
            prompt.clear()
        else:
            self.exit(0)

    # ---- painting ----

    def _sink(self, event: object) -> None:
        painter = self.painter
        if painter is None:
            return
        painter.on_event(event)  # type: ignore[arg-type]  # the Interaction's events
        if type(event) is TurnFailed and self.session.marks.first_delta_at is None:
            self._restore_draft()
        if type(event) is TurnStarted:
            self._frames.resume()  # type: ignore[attr-defined]  # a textual Timer
        elif not painter.streaming:
            self._frames.pause()  # type: ignore[attr-defined]

    def _restore_draft(self) -> None:
        """Nothing came back (provider down, key refused): the message returns to the prompt."""
        prompt = self.query_one(Prompt)
        if self.sent_text and not prompt.text:
            prompt.load_text(self.sent_text)
            prompt.move_cursor(prompt.document.end)

    def _frame(self) -> None:
        if self.painter is not None:
            self.painter.frame()

    def _note(self, text: str, style: str = "dim") -> None:
        if self.painter is not None:
            self.painter.note(text, style)

    def _queue_changed(self, event: QueueChanged) -> None:
        view = self.query_one("#queue", Static)
        if not event.items:
            view.display = False
            return
        head = "queued (paused: Enter on an empty prompt resumes)" if event.paused else "queued"
        lines = [f"{head} · /queue edit N · /queue drop N · /queue up N"]
        lines += [f"  {i}. {item.splitlines()[0][:100]}" for i, item in enumerate(event.items, 1)]
        view.update("\n".join(lines))
        view.display = True

    def _files(self) -> list[str]:
        return list(self.files)

    def spawn(self, coro: object) -> None:
        """Run ``coro`` in the background (its failure is shown, never lost)."""
        task = asyncio.ensure_future(coro)  # type: ignore[call-overload]
        self.background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            if not isinstance(error, ChannelError):
                self._note(f"✗ {error!r}", "bold red")

    async def on_unmount(self) -> None:
        await self.interaction.aclose()
        for task in list(self.background):
            task.cancel()
        await self._channels.aclose()


def project_root(path: Path) -> Path:
    """The repo root for ``path``: the nearest folder with .git, else ``path`` itself."""
    path = path.resolve()
    for folder in (path, *path.parents):
        if (folder / ".git").exists():
            return folder
    return path

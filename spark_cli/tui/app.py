"""`spark`: the interactive session — type while it streams, Esc, redirect, queue, undo, /test.

The screen only: widgets (app.tcss), layout and keys (``slash.KEYS``). The session comes through
an ``Interaction``; the controllers get the ``ScreenFeed`` as ``Output`` and the app as host."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Coroutine
from typing import Any, ClassVar

from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.driver import Driver
from textual.timer import Timer
from textual.widgets import Static, TextArea

from spark_cli.session.api import ChannelError
from spark_cli.session.config.presets import FULL_ACCESS
from spark_cli.session.events import CompactionFinished, ProseDelta, TurnFailed
from spark_cli.session.extensions.prompt_files import find_command, load_commands
from spark_cli.session.interaction import (
    Interaction,
    InteractionEvent,
    QueueChanged,
    TurnEnded,
)
from spark_cli.tui.commands.approval_bar import ApprovalBar, TuiApprover
from spark_cli.tui.commands.best_view import BestController
from spark_cli.tui.commands.context_files import ContextFiles
from spark_cli.tui.commands.copying import line_count
from spark_cli.tui.commands.queue_panel import QueuePanel, queue_text
from spark_cli.tui.commands.slash import RESERVED, Commands
from spark_cli.tui.commands.test_command import TestRunner
from spark_cli.tui.commands.tool_calls import CallOutputs
from spark_cli.tui.commands.trust_ask import ask_trust
from spark_cli.tui.deep.deep_view import DeepController
from spark_cli.tui.hud import Hud
from spark_cli.tui.keeper import Keeper
from spark_cli.tui.link import ProviderLink
from spark_cli.tui.prompt.assist import PromptAssist
from spark_cli.tui.prompt.popup import Popup
from spark_cli.tui.prompt.prompt import Prompt
from spark_cli.tui.setup import TuiSetup
from spark_cli.tui.transcript.painter import Painter
from spark_cli.tui.transcript.screen_feed import ScreenFeed
from spark_cli.tui.transcript.transcript import Transcript
from spark_cli.tui.tuning.screen_rate import set_screen_rate

HINT_S = 0.3
ESC_ESC_S = 0.6
"""Two Esc on an empty prompt this close together: /rewind."""
HELP = ("new here? Enter sends (while it streams: redirects), Tab queues, Esc stops · "
        "/ commands · @ attaches a file · ? keys")
"""The one-line hint of the first run in a repo."""


class Below(Vertical):
    """What sits under the transcript: a transcript frame asks this blank box, not the
    prompt and the HUD inside it (`spark bench stream --modes floor,tui`)."""

    BLANK = True


class SparkApp(App[int]):
    """The screen: widgets, layout and keys; the controllers do the rest (module doc)."""

    CSS_PATH = "app.tcss"
    TITLE = "spark"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "interrupt", "Stop", priority=True),
        Binding("ctrl+z", "undo", "Undo edits", priority=True),
        Binding("ctrl+c", "ctrl_c", "Stop / quit", priority=True),
        Binding("ctrl+g", "deep", "Deep task", priority=True),
        Binding("ctrl+o", "last_call", "Last tool call", priority=True),
        Binding("ctrl+q", "quit", "Quit", priority=True),
        Binding("pageup", "page(-1)", "Scroll up", priority=True),
        Binding("pagedown", "page(1)", "Scroll down", priority=True),
    ]

    def __init__(self, setup: TuiSetup, *, driver_class: type[Driver] | None = None) -> None:
        set_screen_rate()  # a key shows within a few ms, not 17-33 (screen_rate's doc)
        super().__init__(driver_class=driver_class)
        self.setup = setup
        self.session = session = setup.session
        self.feed = feed = ScreenFeed(session, self._after_event)
        self.keeper = Keeper(setup.store, feed.note, self.set_timer)
        self.keeper.keep(session)
        saved = self.saved = self.keeper.load()
        self.link = ProviderLink(session, setup.connect, setup.flags, feed.note, feed.link_state)
        self.context_files = ContextFiles(session.root)
        self.started = asyncio.Event()
        """Set once the start question (trust) is answered: no request leaves before."""
        self.interaction = interaction = Interaction(
            session, feed.on_event, queue=saved.queue, ready=self._when_started,
            files=self.context_files.files)
        self.background: set[asyncio.Task[None]] = set()
        self.sent_text = ""
        self.tests = TestRunner(session, feed, every=self.set_interval, busy=self._busy,
                                submit=interaction.submit)
        self.deep = DeepController(session, setup.connect, feed, hud=feed.deep_tasks,
                                   files=self.context_files.files, busy=self._busy,
                                   problem=setup.deep_problem)
        feed.ledger.deep = self.deep.usages
        self.queue = QueuePanel(interaction, feed, self.to_prompt)
        self.best = BestController(session, setup.connect, feed, lanes=self._lanes,
                                   busy=self._busy, spawn=self.spawn)
        calls = CallOutputs(feed, lambda: feed.painter.calls if feed.painter is not None else ())
        self.commands = Commands(session, feed, self, files=self.context_files,
                                 busy=self._busy, tests=self.tests, deep=self.deep,
                                 queue=self.queue, calls=calls, ledger=feed.ledger,
                                 best=self.best.command)
        self.assist = PromptAssist(session, self.context_files, feed, spawn=self.spawn,
                                   later=self.call_after_refresh)
        self._hint_timer: Timer | None = None
        self._esc_at = -ESC_ESC_S

    def compose(self) -> ComposeResult:
        yield Transcript(id="transcript")
        with Below(id="below"):
            yield Static("", id="lanes", markup=False)
            yield Static("", id="queue", markup=False)
            yield Static("", id="hint", markup=False)
            yield Popup(id="popup")
            yield ApprovalBar(id="approval")
            yield Prompt(self.saved.prompts, id="prompt")
            yield Hud(id="hud")

    def on_mount(self) -> None:
        prompt = self.query_one(Prompt)
        prompt.focus()
        self.assist.mount(prompt, self.query_one(Popup))
        if self.saved.draft:
            prompt.load_text(self.saved.draft)
            prompt.move_cursor(prompt.document.end)
        painter = Painter(self.query_one(Transcript), self.query_one(Hud), self.feed.state,
                          lambda: self.session.marks, self._queue_changed,
                          lambda period, tick: self.set_interval(period, tick, pause=True))
        self.feed.attach(painter)
        self.session.set_approver(TuiApprover(self.query_one(ApprovalBar), self.feed,
                                              prompt.focus, painter.asking))
        settings = self.session.settings
        painter.note(f"spark · {settings.provider.name} · {settings.provider.model} · "
                     f"{self.session.root.name}", "bold")
        if self.saved.first_run:
            painter.note(HELP)
        for line in self.saved.problems:
            painter.note(line, "yellow")
        if self.saved.draft:
            painter.note("restored your unsent draft", "dim")
        if self.saved.queue:
            self._queue_changed(QueueChanged(tuple(self.saved.queue), True))
        # what can wait, after the first frame: starting the bundled engine (imports, a
        # server) would otherwise delay the prompt by ~0.2 s; the first turn waits for it
        self.call_after_refresh(self._after_first_frame)

    def _after_first_frame(self) -> None:
        """What can wait until the prompt shows: the channel, the undo mark, a resumed talk."""
        if self.setup.resume:
            self.resume_conversation()
        self.commands.mark_start()
        self.spawn(self._start_after_trust())

    async def _start_after_trust(self) -> None:
        """Ask about untrusted project files first; then the channel, MCP, the deep track."""
        trust = self.session.settings.trust
        if trust is not None and trust.asks and await ask_trust(
                trust, self.query_one(ApprovalBar), self.feed):
            await self.reconfigure({})  # the settings again, with the project layer
        self.query_one(Prompt).focus()
        if self.session.settings.commands == "full-access":
            self.feed.note(f"commands = full-access: {FULL_ACCESS}", "yellow")
        for line in self.session.settings.ignored:
            self.feed.note(line, "yellow")
        self.started.set()
        self.spawn(self.link.ensure())
        self.session.start_servers()
        self.deep.open(self.setup.deep_settings, self.setup.load_deep)

    async def _when_started(self) -> None:
        await self.started.wait()
        await self.link.ensure()

    def _busy(self) -> bool:
        return self.interaction.busy

    async def on_prompt_sent(self, message: Prompt.Sent) -> None:
        text = message.text
        self.query_one(Transcript).follow()  # what is sent shows, wherever the user had scrolled
        if text.strip().startswith("/"):
            if find_command(text.strip(), load_commands(self.session.root, RESERVED)) is None:
                await self.commands.run(text.strip())
            else:  # its ! lines may ask: the screen goes on meanwhile
                self.run_worker(self._expanded(text))
            return
        self._send(text, text)

    async def _expanded(self, typed: str) -> None:
        try:
            text = await self.session.expand_command(typed.strip(), RESERVED)
        except ValueError as exc:  # a broken prompt file: nothing is sent
            self.commands.out.note(f"✗ {exc}", "red")
            return
        self._send(text or typed, typed)

    def _send(self, text: str, typed: str) -> None:
        if text.strip():
            self.query_one(Prompt).remember(typed)
            self.sent_text = text
            self.keeper.prompt_sent(text)
            self.assist.attach(text)
        self.interaction.submit(text)

    def on_prompt_queue_asked(self, message: Prompt.QueueAsked) -> None:
        self.interaction.enqueue(message.text)

    async def action_interrupt(self) -> None:
        if self.screen.selections:
            self.screen.clear_selection()  # as Esc does in any Textual app; it interrupts too
        if self.best.stop():  # a race: Esc stops every candidate
            return
        if self.assist.close() and not self.interaction.busy:
            return
        if self.interaction.busy and self.feed.painter is not None:
            self.feed.painter.mute()
            await self.interaction.interrupt()
            return
        self.tests.cancel()
        if not self.query_one(Prompt).text:
            now, before = time.monotonic(), self._esc_at
            self._esc_at = now
            if now - before < ESC_ESC_S:
                self._esc_at = -ESC_ESC_S
                await self.commands.run("/rewind")

    def action_page(self, direction: int) -> None:
        """PageUp / PageDown scroll the transcript; the prompt keeps the focus."""
        transcript = self.query_one(Transcript)
        if direction < 0:
            transcript.scroll_page_up(animate=False)
        else:
            transcript.scroll_page_down(animate=False)

    async def action_undo(self) -> None:
        self.query_one(Transcript).follow()  # what the key answers shows, as for a command
        await self.commands.run("/undo")

    async def action_last_call(self) -> None:
        """Ctrl+O: the last tool call's result under it."""
        self.query_one(Transcript).follow()
        await self.commands.run("/call")

    async def action_ctrl_c(self) -> None:
        """Copy a selection; else stop a turn, clear the prompt or (empty) quit."""
        selected = self.screen.get_selected_text()
        if selected:
            self.copy_to_clipboard(selected)
            self.screen.clear_selection()
            self.feed.note(f"copied {line_count(selected)} to the clipboard")
            return
        prompt = self.query_one(Prompt)
        if self.interaction.busy:
            await self.action_interrupt()
        elif prompt.text:
            prompt.clear()
        else:
            self.exit(0)

    def action_deep(self) -> None:
        """Ctrl+G: the prompt's text becomes a deep task."""
        prompt = self.query_one(Prompt)
        text = prompt.text
        if not text.strip():
            self.feed.note("Ctrl+G sends the prompt to the deep track: type the task first",
                           "yellow")
            return
        prompt.clear()
        prompt.remember(text)
        self.query_one(Transcript).follow()
        self.deep.start(text)

    async def action_quit(self) -> None:
        """Ctrl+Q; with deep tasks running it asks first (a second Ctrl+Q within 3 s)."""
        if self.deep.may_quit():
            self.exit(0)

    def _after_event(self, event: InteractionEvent) -> None:
        """The keeper takes each event; a turn failed before any answer refills the prompt."""
        self.keeper.on_event(event)
        if type(event) is ProseDelta:  # per token
            return
        if (type(event) is TurnFailed and self.session.marks.first_delta_at is None) or (
                type(event) is CompactionFinished and event.outcome == "cancelled" and event.auto):
            self._restore_draft()  # a turn cancelled while compacting was never sent
        elif type(event) is TurnEnded or (type(event) is CompactionFinished
                                          and event.outcome == "compacted" and not event.auto):
            self.keeper.turn_ended(self.session)
            self.assist.paths.stale()  # the turn may have made files

    def _restore_draft(self) -> None:
        """Nothing came back (provider down, key refused): the message returns to the prompt."""
        prompt = self.query_one(Prompt)
        if self.sent_text and not prompt.text:
            self.to_prompt(self.sent_text)

    def to_prompt(self, text: str) -> None:
        prompt = self.query_one(Prompt)
        prompt.load_text(text)
        prompt.move_cursor(prompt.document.end)

    def _lanes(self, text: str | None) -> None:
        """The best-of lanes above the prompt (None: hide them)."""
        view = self.query_one("#lanes", Static)
        view.update(text or "")
        view.display = bool(text)

    def _queue_changed(self, event: QueueChanged) -> None:
        self.keeper.queue_changed(event.items)
        view = self.query_one("#queue", Static)
        text = queue_text(event)
        if text is not None:
            view.update(text)
        view.display = text is not None

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        text = event.text_area.text
        self.keeper.draft_changed(text)
        self.assist.changed(text)
        if self.deep.track is not None:
            if self._hint_timer is not None:
                self._hint_timer.stop()
            self._hint_timer = self.set_timer(HINT_S, lambda: self._show_hint(text))

    def _show_hint(self, text: str) -> None:
        line = self.deep.hint(text)
        hint = self.query_one("#hint", Static)
        hint.update(line or "")
        hint.display = bool(line)

    def clear_transcript(self) -> None:
        self.query_one(Transcript).clear()
        self.keeper.new_conversation()

    def resume_conversation(self, session_id: str = "") -> None:
        self.keeper.resume(self.session, self.feed.replay, session_id)

    def fork_conversation(self) -> tuple[str, str]:
        self.session.save()  # the conversation so far, saved as it is
        store = self.keeper.store
        if store is None:
            return "", ""
        kept, new = store.session_id, store.fork()
        self.session.save()
        return kept, new

    def conversation_rewound(self, index: int, text: str) -> None:
        self.query_one(Transcript).clear()
        self.feed.replay(self.keeper.rewound(index))
        self.session.save()
        self.to_prompt(text)

    def compact(self, focus: str) -> bool:
        return self.interaction.compact(focus)

    async def request_quit(self) -> None:
        await self.action_quit()

    async def reconfigure(self, flags: dict[str, object]) -> None:
        """``/model``, ``/provider``: new settings; the conversation carries over."""
        if self.interaction.busy:
            self.feed.note("a turn is running: Esc first", "yellow")
            return
        settings = await self.link.reconfigure(flags)
        if isinstance(settings, str):
            self.feed.note(f"✗ {settings}", "bold red")
            return
        self.feed.settings_changed(settings)
        if not self.link.connected:
            self.spawn(self.link.ensure())
        self.feed.note(f"now {settings.provider.name} · {settings.provider.model}", "bold")

    def spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        """Run ``coro`` in the background (its failure is shown, never lost)."""
        task = asyncio.get_running_loop().create_task(coro)
        self.background.add(task)
        task.add_done_callback(self._background_done)

    def _background_done(self, task: asyncio.Task[None]) -> None:
        self.background.discard(task)
        if not task.cancelled() and task.exception() is not None:
            error = task.exception()
            if not isinstance(error, ChannelError):
                self.feed.note(f"✗ {error!r}", "bold red")

    async def on_unmount(self) -> None:
        await self.interaction.aclose()
        await self.session.close_servers()
        await self.deep.aclose()
        for task in list(self.background):
            task.cancel()
        await self.link.aclose()

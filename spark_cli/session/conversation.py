"""One conversation with a model: its history, what the model saw, and its turns.

``Session(channel, root, settings)`` is the session core every front end
drives through ``spark_cli.session.api.SessionApi``. ``run_turn`` builds the
request (``spark_cli.session.building.request``; a problem there is a ``TurnFailed``
and nothing is sent) and runs it as a :class:`spark_cli.session.turn.TurnRun`.

``prepare()`` builds the next turn's request ahead, before any channel exists
(the channel may be set later): a one-shot front end checks the request (the
window budget, binary files) before it starts an engine or connects.

The assistant's text (partial too, after an interrupt) joins the conversation,
so the next turn continues from it; refusals of the last turn are told to the
model at the start of the next one.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from spark_cli.protocol.channel import Channel, Message, TurnRequest
from spark_cli.session.building.request import (
    BuiltRequest,
    RequestError,
    build_request,
    warm_request,
)
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.report import ContextReport
from spark_cli.session.events import SessionEvent, TurnFailed
from spark_cli.session.lazy_applier import LazyApplier
from spark_cli.session.marks import TurnMarks
from spark_cli.session.steers import SteerLog
from spark_cli.session.turn import TurnRun
from spark_cli.session.window_learning import learn

INTERRUPTED_NOTE = "\n\n[interrupted by the user]"
FEEDBACK_HEAD = "These edits from your previous answer were NOT applied:\n"


class TurnInProgress(RuntimeError):
    """``run_turn`` was called while another turn of the same session is still running."""


class Session:
    """One conversation with a model over ``channel``, editing files under ``root``."""

    def __init__(self, channel: Channel | None, root: Path, settings: Settings, *,
                 dry_run: bool = False) -> None:
        self._channel = channel
        self.root = Path(root).resolve()
        self._settings = settings
        self.dry_run = dry_run
        self.history: list[Message] = []
        """The conversation so far (user messages with their file blocks, answers)."""
        self.seen: dict[str, str] = {}
        """path -> the text the model last saw (the conflict check's baseline)."""
        self._sent: dict[str, str] = {}  # path -> sha256 of the content last sent
        self._feedback: list[str] = []  # refusals to tell the model about next turn
        self._stop = False
        self._streaming = False
        self._steers = SteerLog()
        self._prepared: tuple[str, tuple[str, ...], int, BuiltRequest] | None = None
        self.marks = TurnMarks()
        """The latest turn's latency marks (set as the turn runs)."""
        self.context_tokens = 0
        """Tokens the latest request sent (the HUD's window figure)."""
        self.context: ContextReport | None = None
        """What the latest request (built or prepared) holds, part by part, and what was
        trimmed to fit the window."""

    @property
    def streaming(self) -> bool:
        return self._streaming

    @property
    def channel(self) -> Channel | None:
        """May be attached later (after ``prepare``); ``run_turn`` needs it."""
        return self._channel

    def attach(self, channel: Channel | None) -> None:
        self._channel = channel

    @property
    def settings(self) -> Settings:
        return self._settings

    def configure(self, settings: Settings) -> None:
        self._settings = settings
        self._prepared = None  # built with the old settings

    def restore(self, history: Sequence[Message]) -> None:
        if self._streaming:
            raise TurnInProgress("a turn is running: interrupt it first")
        self.reset()
        self.history.extend(history)

    def files_changed(self) -> None:
        self.seen.clear()

    def repo_files(self) -> list[str]:
        from spark_cli.session.context.scan import scan

        return scan(self.root).paths()

    def reset(self) -> None:
        """Start a new conversation (``/clear``): no history, and every file is sent again
        (the model forgot it). Files on disk and the undo journal are not touched."""
        if self._streaming:
            raise TurnInProgress("a turn is running: interrupt it first")
        self.history.clear()
        self._sent.clear()
        self._feedback.clear()
        self._prepared = None

    async def warm(self) -> None:
        """Open the channel's connection now, so the first turn pays no handshake; a new
        conversation also sends its instructions ahead (``generate: false`` where the
        channel chains), so a refused key or a wrong model shows before the first turn.

        Raises ``ChannelError`` when the provider cannot be reached (a front end
        shows it; the first turn reports it again)."""
        if self.channel is None:
            return
        if self.history:
            await self.channel.warm()
            return
        await self.channel.warm(warm_request(self.settings, self.root))

    async def interrupt(self) -> None:
        """Stop the running turn now (it ends with ``TurnCompleted(status="cancelled")``)."""
        if not self._streaming or self.channel is None:
            return
        self._stop = True
        await self.channel.stop()

    async def steer(self, text: str) -> bool:
        """Redirect the running turn in-band when the channel can; False when it cannot.

        Without in-band steering a front end interrupts and starts a new turn: the
        partial answer is already in ``history``.
        """
        if not self._streaming or self.channel is None or not self.channel.capabilities.steer:
            return False
        await self.channel.steer(text)
        self._steers.asked(text)
        return True

    def prepare(self, instruction: str, files: Sequence[str]) -> TurnFailed | None:
        """Build the next turn's request now (no channel needed); its failure, if any.

        ``run_turn`` with the same instruction and files right after uses it, so
        a request that cannot be sent is found before an engine is started or a
        connection opened.
        """
        try:
            built = self._build(instruction, files)
        except RequestError as exc:
            self._prepared = None
            return exc.failure()
        self._prepared = (instruction, tuple(files), len(self.history), built)
        self.context = built.context
        return None

    @property
    def prepared(self) -> TurnRequest | None:
        """The request ``prepare`` built, until ``run_turn`` takes it."""
        return self._prepared[3].request if self._prepared is not None else None

    def _build(self, instruction: str, files: Sequence[str]) -> BuiltRequest:
        asked = instruction
        if self._feedback:
            notes = "".join(f"- {note}\n" for note in self._feedback)
            asked = f"{FEEDBACK_HEAD}{notes}\n{instruction}"
        return build_request(self.settings, self.root, files, asked,
                             history=tuple(self.history), already_sent=self._sent)

    def _take_prepared(self, instruction: str, files: Sequence[str]) -> BuiltRequest:
        prepared, self._prepared = self._prepared, None
        if prepared is not None and prepared[:3] == (instruction, tuple(files),
                                                     len(self.history)):
            return prepared[3]
        return self._build(instruction, files)

    async def run_turn(self, instruction: str,
                       files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """Run one turn; yields session events and ends with TurnCompleted or TurnFailed."""
        if self._streaming:
            raise TurnInProgress("a turn is already running: interrupt it or wait for it")
        channel = self.channel
        if channel is None:
            raise RuntimeError("the session has no channel yet: attach one first")
        try:
            built = self._take_prepared(instruction, files)
        except RequestError as exc:
            yield exc.failure()
            return
        run = self._start(built, instruction)
        try:
            async for event in run.stream(channel):
                yield event
            for event in run.close():
                yield event
        finally:
            self._streaming = False
            run.applier.end()
            self._remember(built, run.parts, run.applier.seen, cancelled=self._stop)
        learned = learn(self.settings, run.failure, built.pieces)
        if learned is not None:  # an overflow answer told the window: the next request fits
            self._settings = learned
        yield run.result()

    def _start(self, built: BuiltRequest, instruction: str) -> TurnRun:
        self.context_tokens = built.input_tokens
        self.context = built.context
        self._feedback.clear()
        self._steers = SteerLog()
        for target in built.targets:
            if target.path in built.sent:
                self.seen[target.path] = target.text
        label = instruction.strip().splitlines()[0][:80] if instruction.strip() else "spark turn"
        applier = LazyApplier(self.root, self.seen, label,
                              allow_syntax_errors=self.settings.allow_syntax_errors,
                              dry_run=self.dry_run, sent=built.sent)
        self._stop = False
        self._streaming = True
        run = TurnRun(built.request, applier, self._steers, self._feedback,
                      provider=self.settings.provider, stopped=self._stopped)
        self.marks = run.marks
        return run

    def _stopped(self) -> bool:
        return self._stop

    def _remember(self, built: BuiltRequest, parts: list[str], seen: dict[str, str] | None, *,
                  cancelled: bool) -> None:
        """Keep the conversation (incl. a partial answer) and what the model now knows."""
        if seen is not None:
            self.seen = dict(seen)  # our own writes are not the user's changes
        if not parts:
            return  # nothing came back: the next turn sends this request again
        self.history.append(built.user_message)
        self.history.extend(self._steers.conversation(parts, INTERRUPTED_NOTE if cancelled else ""))
        for target in built.targets:
            if target.path in built.sent:
                self._sent[target.path] = target.sha256

"""Session events to screen: buffer per token, paint per frame, never the other way round.

Prose is kept for ``frame()`` (~30 Hz while a turn streams, fewer ticks while the text races:
:mod:`.frame_pace`), but the answer's first text; other events paint at once. ``mute()`` (Esc)
drops what no frame showed yet."""

from __future__ import annotations

import time
from collections.abc import Callable

from rich.console import RenderableType
from rich.text import Text
from textual.timer import Timer

from spark_cli.session.events import (
    CommandFinished,
    CommandOutput,
    CommandStarted,
    CompactionFinished,
    CompactionStarted,
    HookWarning,
    ProseDelta,
    Queued,
    Reconnected,
    RequestSent,
    Steered,
    SteerRejected,
    ToolCallFinished,
    ToolCallStarted,
    ToolLoopStopped,
    TurnCompleted,
    TurnFailed,
    WaitingToRetry,
)
from spark_cli.session.interaction import (
    InteractionEvent,
    QueueChanged,
    TurnEnded,
    TurnStarted,
)
from spark_cli.session.marks import TurnMarks
from spark_cli.tui.hud import Hud, HudState
from spark_cli.tui.transcript.answer_view import answer_view
from spark_cli.tui.transcript.frame_pace import FramePace
from spark_cli.tui.transcript.markdown_stream import MarkdownStream, Op
from spark_cli.tui.transcript.shown import CALL_MARK, item_view, shown_item
from spark_cli.tui.transcript.transcript import Transcript

FRAME_S = 1 / 30
"""The frame clock's period while a turn streams (paused between turns)."""
HUD_PERIOD_S = 0.25
"""Live figures (tok/s, frame time) repaint at most this often (a HUD repaint repaints the
prompt too)."""
CHARS_PER_TOKEN = 3.8
"""Live tok/s counts characters (exact usage arrives with the turn's end)."""


def call_line(call: ToolCallFinished, number: int) -> Text:
    """One tool call as one line: ``⚙ search TAX_RATE → 3 hits  #2`` (``/call 2``: its output)."""
    text = Text(CALL_MARK + call.line, style="dim" if call.ok else "yellow")
    text.append(f"  #{number}", style="dim italic")
    return text


FOLDED_LINES = 4
"""A command's output shows its last few lines, live and once it ended (``/call N``: all)."""


def command_block(done: CommandFinished, number: int, last: list[str]) -> Text:
    """A command that ended, folded: its line and the last lines of its output."""
    ok = done.ended == "exit" and done.exit_code == 0
    text = Text("$ " + done.line, style="dim" if ok else "yellow")
    text.append(f"  #{number}", style="dim italic")
    for line in last:
        text.append("\n  │ " + line, style="dim")
    return text


class Painter:
    """Owns the transcript's streaming state and the HUD figures (see the module doc)."""

    def __init__(self, transcript: Transcript, hud: Hud, state: HudState,
                 marks: Callable[[], TurnMarks], on_queue: Callable[[QueueChanged], None],
                 every: Callable[[float, Callable[[], None]], Timer] | None = None) -> None:
        self.transcript = transcript
        self.hud = hud
        self.state = state
        self.marks = marks
        self.on_queue = on_queue
        self.stream = MarkdownStream()
        self.muted = False
        self.streaming = False
        self._hud_due = 0.0  # clock() when the live figures may repaint again
        self.clock: Callable[[], float] = time.monotonic
        """The HUD's clock (Retry-After countdowns, repaint pacing); tests fix it."""
        self._calling = False  # a tool call runs: the HUD names it, frames leave it be
        self.pace = FramePace()
        """Which frame ticks paint (every other one while text scrolls past reading)."""
        self.calls: list[ToolCallFinished | CommandFinished] = []
        """The tool calls of the session so far, in order (``/calls``, ``/call N``)."""
        self._output: list[str] = []  # a running command's last lines (the live fold)
        self._frames = every(FRAME_S, self.frame) if every is not None else None
        """Calls ``frame`` while a turn streams (``every`` makes it paused)."""

    def on_event(self, event: InteractionEvent) -> None:
        if type(event) is ProseDelta:
            self.prose(event.text)
            return
        self._seal()
        self._on_other(event)

    def prose(self, text: str) -> None:
        """A delta of the answer's text: kept for the next frame (the first one painted now)."""
        if not self.muted:
            stream = self.stream
            stream.feed(text)
            if not stream.taken:  # the answer's first text: shown now, not next frame
                self._paint_prose()

    def _seal(self) -> None:
        """Paint the prose so far and close its open block (what comes next goes after it)."""
        self._paint_prose()
        sealed = self.stream.seal()
        if sealed is not None:
            self.transcript.replace_open(answer_view(sealed))

    def _on_other(self, event: InteractionEvent) -> None:
        state, write = self.state, self.transcript.write
        match event:
            case TurnStarted():
                self._start()
            case RequestSent():
                state.state = "waiting"
            case Queued(position=position):
                state.state, state.queued_at = "waiting", position
            case WaitingToRetry(seconds=seconds, reason=reason, attempt=attempt):
                state.state, state.retry_at = "waiting", self.clock() + seconds
                write(Text(f"… {reason}: retry {attempt} in {seconds:.1f} s", style="yellow"))
            case Reconnected(reason=reason):
                write(Text(f"… reconnected ({reason})", style="dim"))
            case HookWarning():
                write(Text(f"⚠ {event.line}", style="yellow"))
            case (ToolCallStarted() | ToolCallFinished() | ToolLoopStopped() | CommandStarted()
                  | CommandOutput() | CommandFinished()):
                self._on_tool(event)
            case CompactionStarted(tokens=tokens, window=window):
                state.state = f"compacting {round(100 * tokens / max(window, 1))}%…"
            case CompactionFinished(tokens_after=after):
                state.state, state.context_tokens = "ready", after
            case Steered():
                write(Text("↪ redirected: the answer continues from here", style="magenta"))
            case SteerRejected(message=message):
                write(Text(f"↪ the provider refused the redirect ({message})", style="yellow"))
            case TurnCompleted():
                self._end_answer()
                state.ttft_s, state.tokens_per_s = event.ttft_s, event.tokens_per_s
                if event.tool_calls:
                    state.tool_ms = event.tool_time_s * 1000
            case TurnFailed():
                self._end_answer()
            case TurnEnded():
                self._end_turn()
            case QueueChanged():
                state.queue, state.paused = len(event.items), event.paused
                self.on_queue(event)
        item = shown_item(event)  # the block, as a resumed session shows it again
        if item is not None and item.kind != "tool":
            write(item_view(item))
        self.hud.show(state, self.clock())

    def _on_tool(self, event: ToolCallStarted | ToolCallFinished | ToolLoopStopped |
                 CommandStarted | CommandOutput | CommandFinished) -> None:
        """A tool call: the HUD says which runs; each finished one is a transcript line."""
        state = self.state
        match event:
            case CommandStarted() | CommandOutput() | CommandFinished():
                self._on_command(event)
            case ToolCallStarted(label=label):
                state.state, self._calling = f"{CALL_MARK}{label}"[:40], True
            case ToolCallFinished():
                self._calling = False
                self.calls.append(event)
                state.state, state.tool_calls = "waiting", state.tool_calls + 1
                state.tool_ms += event.ms
                self.transcript.write(call_line(event, len(self.calls)))
            case ToolLoopStopped(message=message):
                self.transcript.write(Text(f"{CALL_MARK}{message}", style="yellow"))

    def _on_command(self, event: CommandStarted | CommandOutput | CommandFinished) -> None:
        """A command: its line and last output lines in the tail, then folded in the transcript."""
        state, transcript = self.state, self.transcript
        match event:
            case CommandStarted(command=command, sandboxed=sandboxed):
                self._calling = True
                self._output = [f"$ {command}" + ("" if sandboxed else "   (not sandboxed)")]
                state.state = f"$ {command}"[:40]
                transcript.set_tail(self._output[0], "bold")
            case CommandOutput(text=text):
                lines = self._output
                pieces = text.split("\n")
                if len(lines) > 1:
                    lines[-1] += pieces.pop(0)
                lines.extend(pieces)
                del lines[1:-FOLDED_LINES - 1]
                shown = [line for line in lines[1:] if line.strip()][-FOLDED_LINES:]
                transcript.set_tail("\n".join([lines[0], *("  │ " + line for line in shown)]),
                                    "dim")
            case CommandFinished():
                self._calling = False
                self.calls.append(event)
                state.state, state.tool_calls = "waiting", state.tool_calls + 1
                transcript.set_tail("")
                last = [line for line in self._output[1:] if line.strip()][-FOLDED_LINES:]
                transcript.write(command_block(event, len(self.calls), last))
                self._output = []

    def asking(self, waiting: bool) -> None:
        """A question waits for the user (the approval bar): the HUD says so."""
        self._calling = waiting
        self.state.state = "waiting for your yes (y/a/n)" if waiting else "waiting"
        self.hud.show(self.state, self.clock())

    def _start(self) -> None:
        self.stream = MarkdownStream()
        self.muted = False
        self.streaming = True
        self.pace.reset()
        if self._frames is not None:
            self._frames.resume()
        self.state.state, self.state.ttft_s, self.state.tokens_per_s = "waiting", None, None
        self.state.tool_calls, self.state.tool_ms = 0, 0.0

    def _end_turn(self) -> None:
        if self._frames is not None:
            self._frames.pause()
        self.streaming = self._calling = False
        self.transcript.hurry(False)
        state = self.state
        state.state, state.queued_at, state.retry_at, state.prefill_s = "ready", None, None, None

    def frame(self) -> None:
        """One frame while streaming: new prose, the tail, live figures."""
        if not self.pace.due():
            return
        started = time.perf_counter()
        self._paint_prose()
        marks, state = self.marks(), self.state
        was = state.state
        if marks.first_output_at is None and marks.request_sent_at is not None:
            state.prefill_s = time.perf_counter() - marks.request_sent_at  # the live timer
        else:  # the first output (text or a tool call) ends the prefill
            state.prefill_s = None
        if marks.first_delta_at is not None and not self._calling:
            state.state = "streaming"
            if marks.request_sent_at is not None:
                state.ttft_s = marks.first_delta_at - marks.request_sent_at
            span = time.perf_counter() - marks.first_delta_at
            if span > 0.05:
                state.tokens_per_s = marks.chars / CHARS_PER_TOKEN / span
        state.frame_ms = (time.perf_counter() - started) * 1000
        now = self.clock()
        self.pace.painted(self.transcript.line_count, now)
        self.transcript.hurry(self.pace.fast)
        if state.state != was or now >= self._hud_due:
            self._hud_due = now + HUD_PERIOD_S
            self.hud.show(state, now)

    def mute(self) -> None:
        """Esc: nothing more of this answer reaches the screen, not even what is buffered."""
        self.muted = True
        self.stream.drop()

    def _paint_prose(self) -> None:
        stream = self.stream
        if stream.pending:
            ops = stream.take()  # moves the unfinished line into ``partial``
            self._paint(ops, stream.partial)

    def _end_answer(self) -> None:
        self._paint(self.stream.finish(), "")

    def _paint(self, ops: list[Op], tail: str) -> None:
        transcript = self.transcript
        with transcript.batched():
            for kind, text in ops:
                if kind == "line":
                    transcript.write_open_line(text)
                else:
                    transcript.replace_open(answer_view(text))
            transcript.set_tail(tail)

    def note(self, text: str, style: str = "dim") -> None:
        """A line of the app's own (commands, connection state)."""
        self.write(Text(text, style=style))

    def write(self, renderable: RenderableType) -> None:
        """A block of the app's own, after everything on screen."""
        self._seal()
        self.transcript.write(renderable)

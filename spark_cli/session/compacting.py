"""Compaction: where it cuts the conversation, the request for the summary, spark's own ledger
of the folded turns (asks, files edited re-read from disk, commands run), and one run over the
channel (the conversation changes only when the summary came back whole)."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from spark_cli.edits.model.blocks import FileEdit
from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    ConversationItem,
    Message,
    TextDelta,
    ToolCall,
    ToolOutput,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.files import FileBlock, render_file_blocks
from spark_cli.protocol.summaries import (
    COMPACT_INSTRUCTIONS,
    FOCUS_PREFIX,
    SUMMARY_HEAD,
    Compaction,
)
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.tool_outputs import cut_output, items_tokens
from spark_cli.session.events import (
    CompactionFinished,
    CompactionOutcome,
    CompactionStarted,
    SessionEvent,
)
from spark_cli.session.spend.usage import Usage, UsageMeter

SUMMARY_SHARE = 0.12
"""Of the input budget, what the model's summary may take."""
LEDGER_FILES_SHARE = 0.15
"""Of the input budget, what the edited files' current content may take in the ledger."""
CUT_NOTE = "[summary cut to fit its budget: {kept:,} of {total:,} tokens kept]"
ASK = ("Summarise the conversation above for the assistant that carries it on. Its {turns} "
       "turn{s} will be replaced by your summary.")
ASKED_CHARS = 200
LAST_ASKED_CHARS = 4_000
"""The latest ask is kept whole (up to this): a long turn may fold its own message."""
LEDGER_HEAD = "What spark recorded of those turns (not the model's summary):"
LEFT = "the conversation is as it was"
KEPT_SHARE = 0.5
"""An automatic compaction keeps fewer turns whole past this share of ``compact_at``'s room."""


def is_summary(item: ConversationItem) -> bool:
    return type(item) is Message and item.role == "user" and item.content.startswith(SUMMARY_HEAD)


def turn_starts(history: Sequence[ConversationItem]) -> list[int]:
    """Where each turn starts (a user's message; an earlier summary is none)."""
    return [i for i, item in enumerate(history)
            if type(item) is Message and item.role == "user" and not is_summary(item)]


def split_at(history: Sequence[ConversationItem], keep_turns: int) -> int | None:
    """The first item kept when the last ``keep_turns`` turns stay whole (None: nothing to do)."""
    start = 1 if history and is_summary(history[0]) else 0
    starts = turn_starts(history)
    if keep_turns and len(starts) <= keep_turns:
        return None
    cut = starts[-keep_turns] if keep_turns else len(history)
    return cut if cut > start else None


def budgets(settings: Settings) -> tuple[int, int]:
    """The summary's and the ledger files' budgets, in spark's tokens."""
    room = settings.input_budget / max(settings.token_scale, 1e-9)
    return max(128, int(room * SUMMARY_SHARE)), max(256, int(room * LEDGER_FILES_SHARE))


def compaction_request(settings: Settings, history: Sequence[ConversationItem], cut: int,
                       focus: str) -> TurnRequest:
    """What asks the model (``compact_model`` when set) to summarise ``history[:cut]``."""
    turns = len(turn_starts(history[:cut]))
    ask = ASK.format(turns=turns, s="s" if turns != 1 else "")
    if focus.strip():
        ask += f"\n{FOCUS_PREFIX}{focus.strip()}"
    summary_room, _ = budgets(settings)
    return TurnRequest(model=settings.compact_model or settings.provider.model,
                       messages=(*history[:cut], Message("user", ask)),
                       instructions=COMPACT_INSTRUCTIONS, max_output_tokens=2 * summary_room)


def summary_message(settings: Settings, root: Path, history: Sequence[ConversationItem],
                    cut: int, written: str) -> tuple[str, bool]:
    """The message for ``history[:cut]`` (summary, then ledger) and whether the summary was cut."""
    summary_room, file_room = budgets(settings)
    written = written.strip()
    shown = cut_output(written, summary_room)
    cut_short = shown != written
    if cut_short:
        shown = shown.rsplit("\n[output cut", 1)[0].rstrip()
        shown += "\n" + CUT_NOTE.format(kept=count_tokens(shown), total=count_tokens(written))
    book = ledger(history[:cut], root, file_room, keep=history[cut:])
    return f"{SUMMARY_HEAD}\n{shown}\n\n{book}\n", cut_short


def asked_text(content: str, limit: int = ASKED_CHARS) -> str:
    """A user message's own words: what follows its last fenced block (files, map)."""
    lines = content.strip().splitlines()
    last_fence = max((i for i, line in enumerate(lines)
                      if line.startswith(("```", "~~~"))), default=-1)
    text = " ".join(line.strip() for line in lines[last_fence + 1:] if line.strip())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def edited_files(items: Sequence[ConversationItem]) -> list[str]:
    """The files the assistant's answers edited, in the order first edited."""
    from spark_cli.edits.formats.stream_parser import EditStreamParser  # deferred: startup

    paths: list[str] = []
    for item in items:
        if type(item) is not Message or item.role != "assistant":
            continue
        parser = EditStreamParser()
        for parsed in (*parser.feed(item.content), *parser.close()):
            if type(parsed) is FileEdit:
                for path in (parsed.path, parsed.move_to):
                    if path and path not in paths:
                        paths.append(path)
    return paths


def commands_run(items: Sequence[ConversationItem]) -> list[str]:
    """``command → status`` for each ``run_command`` call (the status line of its output)."""
    status = {item.call_id: (item.output.splitlines() or ["?"])[0]
              for item in items if type(item) is ToolOutput}
    lines = []
    for item in items:
        if type(item) is ToolCall and item.name == "run_command":
            try:
                command = str(json.loads(item.arguments).get("command", item.arguments))
            except (ValueError, AttributeError):
                command = item.arguments
            lines.append(f"`{command[:120]}` → {status.get(item.call_id, 'no result')}")
    return lines


def ledger(items: Sequence[ConversationItem], root: Path, file_room: int,
           keep: Sequence[ConversationItem] = ()) -> str:
    """The ledger of ``items``, with the edited files not in ``keep`` as they are now."""
    asks = [item.content for item in items if type(item) is Message and item.role == "user"
            and not item.content.startswith(SUMMARY_HEAD)]
    asked = [asked_text(text, LAST_ASKED_CHARS if n == len(asks) - 1 else ASKED_CHARS)
             for n, text in enumerate(asks)]
    out = [LEDGER_HEAD, "The user asked:"]
    out += [f"- {text}" for text in asked if text] or ["- (nothing new)"]
    edited = edited_files(items)
    if edited:
        out.append("Files edited: " + ", ".join(edited))
    commands = commands_run(items)
    if commands:
        out += ["Commands run:", *(f"- {line}" for line in commands)]
    kept = "\n".join(item.content for item in keep if type(item) is Message)
    return "\n".join([*out, *_current(root, [p for p in edited if f"\n{p}\n" not in kept],
                                       file_room)])


def _current(root: Path, paths: list[str], room: int) -> list[str]:
    """The current content of ``paths`` as file blocks, within ``room`` tokens."""
    blocks: list[FileBlock] = []
    out: list[str] = []
    for path in paths:
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        left = room - sum(count_tokens(b.content) for b in blocks)
        if left < 64:
            out.append(f"(not shown, no room left: {path})")
            continue
        blocks.append(FileBlock(path, cut_output(text, left)))
    if blocks:
        out += ["Their current content, re-read from disk:", render_file_blocks(blocks)]
    return out


class CompactionRun:
    """Compacts ``history`` once (``result``: the summary and where it cut; ``stop`` cancels)."""

    def __init__(self, settings: Settings, root: Path, history: Sequence[ConversationItem],
                 focus: str = "", *, cut: int | None = None) -> None:
        self.settings = settings
        self.root = root
        self.history = tuple(history)
        self.focus = focus
        self.cut = cut
        """Where to cut (a long turn's latest tool round); None: keep the latest turns."""
        self.result: Compaction | None = None
        self.stopped = False
        self.usage: Usage | None = None
        """What the compaction request used (set once it was answered or stopped)."""

    def stop(self) -> None:
        self.stopped = True

    async def run(self, channel: Channel, before: int, *, auto: bool,
                  applied: Callable[[Compaction], int]) -> AsyncIterator[SessionEvent]:
        """The compaction's events; ``applied`` takes the result, gives the size after."""
        settings, window = self.settings, self.settings.context_window
        cut, keep = self._cut(auto)
        if cut is None:
            yield CompactionFinished("nothing", before, before, window, 0.0,
                                     f"nothing to compact: the last {keep} turn"
                                     f"{'s' if keep != 1 else ''} are kept whole "
                                     "(compact_keep_turns)")
            return
        turns = len(turn_starts(self.history[:cut]))
        yield CompactionStarted(before, window, auto)
        started = time.perf_counter()
        written, why = await self._summary(channel, compaction_request(
            settings, self.history, cut, self.focus))
        seconds = time.perf_counter() - started
        if self.stopped or why is not None:
            outcome: CompactionOutcome = "cancelled" if self.stopped else "failed"
            line = (f"compaction cancelled: {LEFT}" if self.stopped
                    else f"✗ compaction failed ({why}): {LEFT}")
            yield CompactionFinished(outcome, before, before, window, seconds, line, turns, auto,
                                     self.usage)
            return
        text, cut_short = summary_message(settings, self.root, self.history, cut, written)
        self.result = Compaction(text, cut)
        after = applied(self.result)
        line = (f"context {_pct(before, window)} → {_pct(after, window)} · compacted "
                f"{turns} turn{'s' if turns != 1 else ''} in {seconds:.1f} s")
        if cut_short:
            line += " · the summary was cut to its budget"
        yield CompactionFinished("compacted", before, after, window, seconds, line, turns,
                                 auto, self.usage)

    def _cut(self, auto: bool) -> tuple[int | None, int]:
        """Where to cut, and the turns kept whole."""
        settings, keep = self.settings, self.settings.compact_keep_turns
        cut = self.cut or split_at(self.history, keep)
        room = KEPT_SHARE * settings.compact_at * settings.input_budget / settings.token_scale
        while self.cut is None and auto and keep > 1 and (
                cut is None or items_tokens(self.history[cut:]) > room):
            keep -= 1  # fewer turns whole rather than a compaction at every turn, or none
            cut = split_at(self.history, keep) or cut
        return cut, keep

    async def _summary(self, channel: Channel, request: TurnRequest) -> tuple[str, str | None]:
        """The summary the model wrote, and why there is none (None: there is)."""
        parts: list[str] = []
        why: str | None = None
        meter = UsageMeter(request.model, self.settings.compact_price)
        meter.requests = 1
        try:
            async for event in channel.stream(request):
                if type(event) is TextDelta:
                    parts.append(event.text)
                elif type(event) is UsageReported:
                    meter.reported(event.input_tokens, event.cached_tokens, event.output_tokens)
                elif type(event) is TurnFinished and event.status in ("failed", "cancelled"):
                    why = event.reason or event.status
        except ChannelError as exc:
            why = exc.message
        written = "".join(parts)
        if not (meter.input or meter.output):  # the server said nothing: spark's count
            meter.guessed(items_tokens(request.messages), count_tokens(written))
        self.usage = meter.usage()
        if why is None and not written.strip():
            why = "the model wrote no summary"
        return written, why


def _pct(tokens: int, window: int) -> str:
    return f"{round(100 * tokens / window)}%" if window else f"{tokens:,} tokens"

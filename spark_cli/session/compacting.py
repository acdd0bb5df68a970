"""One compaction over the session's channel: the summary streamed back, the conversation
changed only when it came back whole (a cancel or a failure leaves it as it was, and says why)."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path

from spark_cli.protocol.channel import (
    Channel,
    ChannelError,
    ConversationItem,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.summaries import Compaction
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.tool_outputs import items_tokens
from spark_cli.session.events import (
    CompactionFinished,
    CompactionOutcome,
    CompactionStarted,
    SessionEvent,
)
from spark_cli.session.spend.usage import Usage, UsageMeter
from spark_cli.session.window.compaction import (
    compaction_request,
    split_at,
    summary_message,
    turn_starts,
)

LEFT = "the conversation is as it was"
KEPT_SHARE = 0.5
"""An automatic compaction keeps fewer turns whole past this share of ``compact_at``'s room."""


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

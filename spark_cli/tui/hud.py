"""The status line (HUD): provider, model, channel, TTFT, live tok/s, frame time, window, waits,
the session's tokens and cost. :func:`hud_text` makes :class:`HudState` one line that fits the
width (the frame time goes first, then the deep tasks; provider, model and channel shorten)."""

from __future__ import annotations

from dataclasses import dataclass

from textual.widgets import Static

CHANNEL_LABELS = {"responses_ws": "WebSocket", "mock": "WebSocket",
                  "chat_sse": "HTTP SSE (chat)", "responses_sse": "HTTP SSE (responses)"}


@dataclass(slots=True)
class HudState:
    """What the HUD shows: the provider, the connection's state, the latest figures."""

    provider: str = ""
    model: str = ""
    channel: str = ""
    state: str = "starting"
    """starting | ready | streaming | waiting | offline"""
    ttft_s: float | None = None
    tokens_per_s: float | None = None
    frame_ms: float | None = None
    context_tokens: int = 0
    context_window: int = 0
    queued_at: int | None = None
    """Position in the provider's capacity queue."""
    retry_at: float | None = None
    """``time.monotonic()`` when the next retry goes out (a Retry-After countdown)."""
    queue: int = 0
    """Messages waiting in our own queue."""
    paused: bool = False
    deep: str = ""
    prefill_s: float | None = None
    """Seconds since the request left while no token came yet (a live timer)."""
    tool_calls: int = 0
    """Tool calls the model made this turn (spark ran them)."""
    tool_ms: float = 0.0
    """spark's side of this turn's tool calls, in ms."""
    spent: str = ""
    """The session's tokens and cost so far (``tui.cost``)."""


def duration(ms: float) -> str:
    """A span as people read it: ``3.2 ms`` below a second, ``14.8 s`` from one."""
    return f"{ms:.1f} ms" if ms < 1000 else f"{ms / 1000:.1f} s"


def _k(tokens: int) -> str:
    return f"{tokens / 1000:.1f}k" if tokens >= 1000 else str(tokens)


SEPARATOR = " │ "
_SHRINK = ((-1, 16), (0, 12), (1, 4))
"""(part, length kept) giving way in order when the line is too wide: the deep tasks (last
part), the provider · model, the channel; a second pass cuts them to a letter."""
PAUSED = " (paused: Enter resumes)"
FRAME = "frame "


def hud_text(hud: HudState, now: float, width: int = 0) -> str:
    """The one status line for ``hud`` at ``now`` (``time.monotonic()``) in ``width`` columns."""
    parts = _parts(hud, now)
    if width <= 0 or len(SEPARATOR.join(parts)) <= width:
        return SEPARATOR.join(parts)
    parts = [p.replace(PAUSED, " (paused)") for p in parts if not p.startswith(FRAME)]
    if hud.spent and len(SEPARATOR.join(parts)) > width:
        parts.remove(hud.spent)  # then the cost (/cost has it)
    shrink = _SHRINK if hud.deep else _SHRINK[1:]
    for floor in (True, False):
        for index, keep_at_least in shrink:
            over = len(SEPARATOR.join(parts)) - width
            if over <= 0:
                return SEPARATOR.join(parts)
            part = parts[index]
            keep = max(keep_at_least if floor else 1, len(part) - over - 1)
            if keep < len(part):
                parts[index] = part[:keep] + "…"
    if hud.deep and len(SEPARATOR.join(parts)) > width:
        parts.pop()
    return SEPARATOR.join(parts)[:width]


def _parts(hud: HudState, now: float) -> list[str]:
    parts = [f"{hud.provider} · {hud.model}", CHANNEL_LABELS.get(hud.channel, hud.channel)]
    if hud.retry_at is not None and hud.retry_at > now:
        parts.append(f"retry in {hud.retry_at - now:.1f} s")
    elif hud.queued_at is not None and hud.state == "waiting":
        parts.append(f"queued #{hud.queued_at}")
    elif hud.prefill_s is not None and hud.state == "waiting":
        parts.append(f"prefill {hud.prefill_s:.0f} s, {_k(hud.context_tokens)} tokens")
    else:
        parts.append(hud.state)
    if hud.ttft_s is not None:
        parts.append(f"TTFT {hud.ttft_s * 1000:.0f} ms")
    if hud.tokens_per_s is not None:
        parts.append(f"{hud.tokens_per_s:,.0f} tok/s")
    if hud.tool_calls:
        parts.append(f"{hud.tool_calls} tool call{'s' if hud.tool_calls != 1 else ''} "
                     + duration(hud.tool_ms))
    if hud.spent:
        parts.append(hud.spent)
    if hud.frame_ms is not None:
        parts.append(f"{FRAME}{hud.frame_ms:.1f} ms")
    if hud.context_window:
        share = 100 * hud.context_tokens / hud.context_window
        parts.append(f"ctx {_k(hud.context_tokens)}/{_k(hud.context_window)} ({share:.0f}%)")
    if hud.queue:
        parts.append(f"{hud.queue} queued" + (PAUSED if hud.paused else ""))
    if hud.deep:
        parts.append(hud.deep)
    return [p for p in parts if p]


class Hud(Static):
    """One line of status; ``show`` repaints only on change."""

    DEFAULT_CSS = """
    Hud { height: 1; width: 1fr; background: $panel; color: $text-muted; padding: 0 1; }
    """

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__("", markup=False, id=id)
        self._shown = ""
        self._last: tuple[HudState, float] | None = None

    def show(self, hud: HudState, now: float) -> None:
        self._last = (hud, now)
        text = hud_text(hud, now, self.size.width - 2)  # its padding
        if text != self._shown:
            self._shown = text
            self.update(text, layout=False)  # one line of fixed size: a layout per frame
            # would lay out the whole screen while streaming

    def on_resize(self) -> None:
        if self._last is not None:
            self.show(*self._last)

    @property
    def shown(self) -> str:
        return self._shown

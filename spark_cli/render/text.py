"""Human output for `spark edit`: prose as it streams, a line per edit landing, diff, summary.

Prose is written raw, its flushes coalesced (:mod:`.coalesce`); rich is imported only with
``color`` (a TTY), for the status lines, the diff and the summary."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TextIO

from spark_cli.render.coalesce import CoalescingWriter
from spark_cli.session.events import (
    BlockRejected,
    CommandFinished,
    CommandOutput,
    CommandStarted,
    CompactionFinished,
    EditLanded,
    EditRefused,
    HookWarning,
    Queued,
    Reconnected,
    SessionEvent,
    ToolCallFinished,
    ToolLoopStopped,
    WaitingToRetry,
)

_DIFF_STYLES = (("---", "bold"), ("+++", "bold"), ("@@", "cyan"), ("+", "green"), ("-", "red"))


def print_diff(diff: str, out: TextIO, console: Any | None) -> None:
    """A unified diff to ``out`` as it is, or coloured line by line through ``console``."""
    if console is None:
        out.write(diff if diff.endswith("\n") else diff + "\n")
        return
    from rich.text import Text  # deferred: launch -> request

    for raw in diff.rstrip("\n").split("\n"):
        style = next((s for prefix, s in _DIFF_STYLES if raw.startswith(prefix)), "")
        console.print(Text(raw, style=style))


def _fmt_seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.2f} s"


def summary_line(data: Mapping[str, Any]) -> str:
    """The run's one-line summary (``TurnCompleted`` fields): latency, tokens, cost, seconds."""
    status = data.get("status") or "completed"
    spent = _spent(data.get("usage"))
    if status == "failed":  # the error itself is printed on its own line (stderr)
        return (f"turn failed · {data.get('applied', 0)} applied, "
                f"{data.get('refused', 0)} refused" + (f" · {spent}" if spent else ""))
    tps = data.get("tokens_per_s")
    tokens = data.get("output_tokens")
    parts = [
        f"TTFT {_fmt_seconds(data.get('ttft_s'))}",
        f"{tps:,.0f} tok/s" if tps else "- tok/s",
        f"{tokens:,} tokens" if tokens is not None else "- tokens",
        f"{data.get('applied', 0)} applied, {data.get('refused', 0)} refused",
        f"{_fmt_seconds(data.get('duration_s'))} total",
    ]
    if spent:
        parts.insert(3, spent)
    calls = data.get("tool_calls")
    if calls:
        parts.insert(3, f"{calls} tool call{'s' if calls != 1 else ''} "
                        f"({_fmt_seconds(data.get('tool_time_s'))} in spark)")
    if status != "completed":
        reason = data.get("reason")
        parts.append(f"{status}" + (f" ({reason})" if reason else ""))
    server = _server_times(data.get("time_info"))
    if server:
        parts.append(server)
    if data.get("dry_run"):
        parts.append("dry run: nothing written")
    return " · ".join(parts)


def _spent(usage: Any) -> str:
    """``12,000 in (8,000 cached) · $0.0123`` from the summary's usage ("" without one)."""
    if not isinstance(usage, Mapping):
        return ""
    cached = usage.get("cached_input_tokens") or 0
    cost = usage.get("cost_usd")
    return (f"{usage.get('input_tokens', 0):,} in" + (f" ({cached:,} cached)" if cached else "")
            + (" (counted)" if usage.get("counted") else "")
            + (" · cost unknown" if cost is None else f" · ${cost:.4f}"))


_SERVER_TIMES = (("queue_time", "queue"), ("prompt_time", "prompt"),
                 ("completion_time", "completion"))


def _server_times(info: Any) -> str:
    """The provider's own timing (Cerebras' ``time_info``), e.g. ``server: queue 1 ms, ...``."""
    if not isinstance(info, Mapping):
        return ""
    shown = [f"{label} {_fmt_seconds(float(info[key]))}" for key, label in _SERVER_TIMES
             if isinstance(info.get(key), int | float)]
    return "server: " + ", ".join(shown) if shown else ""


class TextRenderer:
    """Renders one `spark edit` run as text: prose to ``prose_out``, status lines, diff and
    summary to ``info_out``, tool calls and command output to ``calls_out``."""

    def __init__(self, prose_out: TextIO, info_out: TextIO | None = None, *,
                 color: bool = False, calls_out: TextIO | None = None) -> None:
        self.prose_out = prose_out
        self.info_out = info_out or prose_out
        self.calls_out = calls_out or self.info_out
        self._output_open = False  # a command's output so far ends mid-line
        self.color = color
        self._prose = CoalescingWriter(prose_out)
        self._at_line_start = True
        self._console: Any = None

    def prose(self, text: str) -> None:
        if not text:
            return
        self._prose.write(text)
        self._at_line_start = text[-1] == "\n"

    def event(self, event: SessionEvent) -> None:
        """A non-prose session event: edit landed/refused, block rejected, waits."""
        match event:
            case EditLanded(outcome=outcome):
                mark = "~" if outcome.partial else "+"
                self.line(f"[{mark}] {outcome.message}",
                          "yellow" if outcome.partial else "green")
            case EditRefused(outcome=refused):
                self.line(f"[x] refused: {refused.message}", "red")
            case BlockRejected(message=message):
                self.line(f"[x] malformed edit block: {message}", "red")
            case Queued(position=position):
                self.line(f"... queued for capacity (position {position})", "yellow")
            case WaitingToRetry(seconds=seconds, reason=reason, attempt=attempt):
                self.line(f"... waiting {seconds:.1f} s before retry {attempt} ({reason})",
                          "yellow")
            case Reconnected(reason=reason):
                self.line(f"... reconnected ({reason})", "yellow")
            case ToolCallFinished():
                self.call(event.line)
            case ToolLoopStopped(message=message):
                self.call(message)
            case HookWarning():
                self.call(f"warning: {event.line}")
            case CommandStarted(command=command, sandboxed=sandboxed):
                self.call(f"$ {command}{'' if sandboxed else '   (not sandboxed)'}")
            case CommandOutput(text=text):
                self._end_prose()
                self.calls_out.write(text)
                self.calls_out.flush()
                self._output_open = not text.endswith("\n")
            case CompactionFinished(line=line, outcome=outcome):
                self.line(line, "green" if outcome == "compacted" else "yellow")
            case CommandFinished(line=line):
                if self._output_open:
                    self.calls_out.write("\n")
                    self._output_open = False
                self.call(line)

    def call(self, text: str) -> None:
        """One tool call's line (on ``calls_out``, plain: it is a log of what was looked at)."""
        if self.calls_out is self.info_out:
            self.line(text, "dim")
            return
        self._end_prose()
        self.calls_out.write(text + "\n")
        self.calls_out.flush()

    def diff(self, path: str, diff: str) -> None:
        if not diff:
            return
        self._end_prose()
        print_diff(diff, self.info_out, self._rich() if self.color else None)
        self.info_out.flush()

    def begin(self, info: Mapping[str, Any]) -> None:
        pass

    def request_sent(self, at: float) -> None:
        pass

    def summary(self, data: Mapping[str, Any]) -> None:
        self.line(summary_line(data), "bold")

    def note(self, text: str) -> None:
        self.line(text, "dim")

    def line(self, text: str, style: str = "") -> None:
        """One status line, on its own line even if prose stopped mid-line."""
        self._end_prose()
        if self.color:
            from rich.text import Text  # deferred: launch -> request

            self._rich().print(Text(text, style=style))
        else:
            self.info_out.write(text + "\n")
            self.info_out.flush()

    def _end_prose(self) -> None:
        """Before a status line: prose is flushed (and ended with a newline if mid-line)."""
        if not self._at_line_start:
            self._prose.write("\n")  # after the prose still pending in the writer
            self._at_line_start = True
        self._prose.flush()

    def _rich(self) -> Any:
        if self._console is None:
            from rich.console import Console  # deferred: launch -> request

            self._console = Console(file=self.info_out, highlight=False, soft_wrap=True)
        return self._console

"""`/test [ARGS]` and `/fix`: the only ways tests run. ``/test`` streams the last ``TAIL_LINES``
lines at 15 Hz (Esc stops its process group); ``/fix`` sends the last failure to the model."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING

from spark_cli.session.api import SessionApi
from spark_cli.tui.output import Busy, Every, Output

if TYPE_CHECKING:
    from spark_cli.session.actions.test_runs import TestRunResult

TAIL_LINES = 12
PAINT_S = 1 / 15


class TestOutput:
    """A running test's output between frames: appended per read, painted per frame."""

    __test__ = False  # not a pytest class

    def __init__(self) -> None:
        self.pending: list[str] = []
        self.partial = ""

    def add(self, text: str) -> None:
        self.pending.append(text)

    def take(self, *, final: bool = False) -> list[str]:
        """Complete lines since the last call (and the unfinished one when ``final``)."""
        if not self.pending and not (final and self.partial):
            return []
        text = self.partial + "".join(self.pending)
        self.pending.clear()
        *lines, self.partial = text.split("\n")
        if final and self.partial:
            lines.append(self.partial)
            self.partial = ""
        return lines


class TestRunner:
    """``/test`` and ``/fix`` over ``session`` (see the module doc)."""

    __test__ = False  # not a pytest class

    def __init__(self, session: SessionApi, out: Output, *, every: Every, busy: Busy,
                 submit: Callable[[str], None]) -> None:
        self.session = session
        self.out = out
        self.every = every
        self.busy = busy
        self.submit = submit
        self.task: asyncio.Task[None] | None = None
        """The running /test (Esc cancels it)."""
        self.last_failure: str | None = None
        """The last failing /test run, as /fix sends it."""

    @property
    def running(self) -> bool:
        return self.task is not None and not self.task.done()

    async def run(self, args: list[str]) -> None:
        """``/test [ARGS]``: start the run in the background."""
        if self.running:
            self.out.note("tests are already running (Esc stops them)", "yellow")
            return
        if self.busy():
            self.out.note("a turn is running: the tests would race its edits; Esc first",
                          "yellow")
            return
        self.task = asyncio.get_running_loop().create_task(self._run(" ".join(args)))

    def cancel(self) -> bool:
        """Esc when no turn streams: stop a running /test. True when something stopped."""
        if self.task is not None and not self.task.done():
            self.task.cancel()
            return True
        return False

    async def fix(self, args: list[str]) -> None:
        """``/fix``: send the last failure to the model."""
        if self.last_failure is None:
            self.out.note("no failing test run to send: /test first", "yellow")
            return
        self.submit(self.last_failure)

    async def _run(self, args: str) -> None:
        # deferred: TUI launch
        from spark_cli.session.actions.test_runs import NoTestCommand, run_requested_tests

        output = TestOutput()
        timer = self.every(PAINT_S, lambda: self._paint(output))
        try:
            outcome = await run_requested_tests(
                self.session.root, self.session.settings, args, on_output=output.add,
                on_start=lambda command, where: self.out.note(
                    f"$ {command.display}  ({where})", "bold"))
        except asyncio.CancelledError:
            self._paint(output, final=True)
            self.out.note("tests stopped (Esc)", "yellow")
            return
        finally:
            timer.stop()
        self._paint(output, final=True)
        if isinstance(outcome, NoTestCommand):
            self.out.note(outcome.details(), "yellow")
            return
        self._verdict(outcome)

    def _paint(self, output: TestOutput, *, final: bool = False) -> None:
        lines = output.take(final=final)
        if not lines:
            return
        shown = lines[-TAIL_LINES:]
        if len(lines) > len(shown):
            self.out.note(f"  … {len(lines) - len(shown)} lines", "dim")
        for line in shown:
            self.out.note("  " + line, "")

    def _verdict(self, run: TestRunResult) -> None:
        result = run.result
        style = "bold green" if run.passed else "bold red"
        self.out.note(f"tests {run.verdict} in {result.duration_s:.1f} s: "
                      f"{run.command.display}", style)
        if run.passed:
            self.last_failure = None
            return
        if run.summary:
            self.out.note(run.summary, "red")
        self.last_failure = run.fix_prompt()
        self.out.note("/fix sends this failure to the model", "dim")

"""`/test [ARGS]` and `/fix`: the only ways tests run, streamed into the transcript.

``/test`` resolves the configured or detected command
(``spark_cli.session.workspace.test_runs``), runs it in the background and shows its
output as it comes (buffered, painted on the app's frame clock, the last
``TAIL_LINES`` lines at most while it runs); Esc stops it (the whole process
group). The verdict is one line; a failure's summary is kept for ``/fix``,
which sends it to the model as the next message (it runs nothing itself).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from spark_cli.session.workspace.test_runs import NoTestCommand, TestRunResult, run_requested_tests

if TYPE_CHECKING:
    from spark_cli.tui.app import SparkApp

TAIL_LINES = 12


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


async def run_test_command(app: SparkApp, args: list[str]) -> None:
    if app.test_task is not None and not app.test_task.done():
        app.note("tests are already running (Esc stops them)", "yellow")
        return
    if app.interaction.busy:
        app.note("a turn is running: the tests would race its edits; Esc first", "yellow")
        return
    app.test_task = asyncio.get_running_loop().create_task(_run(app, " ".join(args)))


async def _run(app: SparkApp, args: str) -> None:
    output = TestOutput()
    timer = app.set_interval(1 / 15, lambda: _paint(app, output))
    try:
        outcome = await run_requested_tests(
            app.session.root, app.session.settings, args, on_output=output.add,
            on_start=lambda command: app.note(f"$ {command.display}", "bold"))
    except asyncio.CancelledError:
        _paint(app, output, final=True)
        app.note("tests stopped (Esc)", "yellow")
        return
    finally:
        timer.stop()
    _paint(app, output, final=True)
    if isinstance(outcome, NoTestCommand):
        app.note(outcome.details(), "yellow")
        return
    _verdict(app, outcome)


def _paint(app: SparkApp, output: TestOutput, *, final: bool = False) -> None:
    lines = output.take(final=final)
    if not lines:
        return
    shown = lines[-TAIL_LINES:]
    if len(lines) > len(shown):
        app.note(f"  … {len(lines) - len(shown)} lines", "dim")
    for line in shown:
        app.note("  " + line, "")


def _verdict(app: SparkApp, run: TestRunResult) -> None:
    result = run.result
    style = "bold green" if run.passed else "bold red"
    app.note(f"tests {run.verdict} in {result.duration_s:.1f} s: {run.command.display}", style)
    if run.passed:
        app.last_failure = None
        return
    if run.summary:
        app.note(run.summary, "red")
    app.last_failure = run.fix_prompt()
    app.note("/fix sends this failure to the model", "dim")


async def fix(app: SparkApp, args: list[str]) -> None:
    if app.last_failure is None:
        app.note("no failing test run to send: /test first", "yellow")
        return
    app.interaction.submit(app.last_failure)

"""`spark bench tui`: the interactive session's speed targets in one run (``## TUI``): an
engine process per rate, headless phases (:mod:`.tui_headless`) and pty ones (:mod:`.tui_pty`)."""

from __future__ import annotations

import asyncio
import compileall
import dataclasses
import os
import secrets
import statistics
import tempfile
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import typer

import spark_cli
from spark_cli.bench.figures import DOCS_OPTION, NO_DOCS_OPTION, pick, report
from spark_cli.bench.processes import child_env, example_repo, start_engine
from spark_cli.bench.tui import tui_headless as headless
from spark_cli.bench.tui import tui_pty as pty
from spark_cli.bench.tui.tui_report import SECTION, table
from spark_cli.bench.tui.tui_resume import resume
from spark_cli.record import record


@record
class TuiBenchPlan:
    """Sizes of every phase (``full`` for the record, ``quick`` for the smoke test)."""

    keep_tokens: int = 30_000
    keep_reps: int = 3
    cpu_tokens: int = 6_000
    samples: int = 150
    escs: int = 10
    turns: int = 200
    turn_tokens: int = 150
    launch_reps: int = 7
    pty_escs: int = 10
    picker_files: int = 20_000

    @staticmethod
    def quick() -> TuiBenchPlan:
        return TuiBenchPlan(keep_tokens=2_000, keep_reps=1, cpu_tokens=500, samples=6, escs=2,
                            turns=11, turn_tokens=40, launch_reps=1, pty_escs=1, picker_files=200)

    def command(self) -> str:
        if self == TuiBenchPlan.quick():
            return "spark bench tui --quick"
        defaults = TuiBenchPlan()
        flags = [f"--{field.name.replace('_', '-')} {getattr(self, field.name)}"
                 for field in dataclasses.fields(self)
                 if getattr(self, field.name) != getattr(defaults, field.name)]
        return " ".join(["spark bench tui", *flags])


KEEP_TPS, KEY_TPS, CPU_TPS = 10_000.0, 2_000.0, 1_000.0
PHASES = ("keep", "cpu", "typing", "pty", "launch", "resume")
"""What ``--only`` picks from (``typing``: keystrokes, Esc and memory)."""
RESUME_TURNS = 500


_PACKAGE = Path(spark_cli.__file__).resolve().parent
"""spark_cli/ (what bytecode is compiled for)."""


def parse_phases(only: str | None) -> tuple[str, ...]:
    """``--only keep,typing`` -> the phases to run, in PHASES order (None: all of them)."""
    asked = PHASES if only is None else pick(only, PHASES, "--only")
    return tuple(name for name in PHASES if name in asked)


def run_all(plan: TuiBenchPlan, phases: tuple[str, ...] = PHASES) -> dict[str, Any]:
    """The phases asked for (all by default), in one run; the figures (``tui_report.table``)."""
    token = secrets.token_urlsafe(12)
    figures: dict[str, Any] = {"plan": plan}
    with tempfile.TemporaryDirectory(prefix="spark-bench-tui-") as tmp:
        work = example_repo(Path(tmp))
        with ExitStack() as engines:
            fast, key, slow = (engines.enter_context(start_engine(
                token, "--brain", "lorem", "--tps", f"{tps:g}", "--ttft-ms", "0",
                env=child_env())).url for tps in (KEEP_TPS, KEY_TPS, CPU_TPS))
            if "keep" in phases:
                keeps = [asyncio.run(headless.keep_up(fast, token, work,
                                                      tokens=plan.keep_tokens, tps=KEEP_TPS))
                         for _ in range(plan.keep_reps)]
                figures["keep"] = {name: statistics.median(k[name] for k in keeps)
                                   for name in keeps[0]}
            if "cpu" in phases:
                figures["cpu"] = asyncio.run(headless.cpu(slow, token, work,
                                                          tokens=plan.cpu_tokens, tps=CPU_TPS))
            if "typing" in phases:
                figures["typing"] = asyncio.run(headless.typing_and_esc(
                    key, token, work, tps=KEY_TPS, stream_s=plan.samples * 0.08 + 1,
                    samples=plan.samples, turns=plan.turns, turn_tokens=plan.turn_tokens,
                    escs=plan.escs, picker_files=plan.picker_files))
            if "pty" in phases:
                figures["pty_esc"] = {
                    name: pty.esc(slow, token, work, driver, plan.pty_escs, key=byte)
                    for name, driver, byte in (("fast", "fast", "\x1b"),
                                               ("stock", "stock", "\x1b"),
                                               ("ctrl_c", "fast", "\x03"))}
        if "launch" in phases:
            figures["launch"] = pty.launch(work, plan.launch_reps)
            figures["imports"] = pty.import_profile(work)
        if "resume" in phases:
            figures["resume"] = asyncio.run(resume(work, RESUME_TURNS))
    return figures


def _compile_bytecode() -> None:
    """What an installed copy has: spark's modules compiled (these machines say don't)."""
    flag = os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    try:
        compileall.compile_dir(str(_PACKAGE), quiet=1)
    finally:
        if flag is not None:
            os.environ["PYTHONDONTWRITEBYTECODE"] = flag


def register(bench_app: typer.Typer) -> None:
    defaults = TuiBenchPlan()

    @bench_app.command("tui")
    def bench_tui(
        quick: bool = typer.Option(False, "--quick", help="A smoke test: every figure, tiny."),
        samples: int = typer.Option(defaults.samples, min=1,
                                    help="Keystrokes timed per streaming phase."),
        turns: int = typer.Option(defaults.turns, min=11, help="Turns before the late phase."),
        launch_reps: int = typer.Option(defaults.launch_reps, min=1, help="Launches timed."),
        pty_escs: int = typer.Option(defaults.pty_escs, min=1,
                                     help="Esc samples per driver in a pty."),
        docs: Path | None = DOCS_OPTION,
        no_docs: bool = NO_DOCS_OPTION,
        fps: int | None = typer.Option(
            None, "--fps", min=1, help="Set TEXTUAL_FPS (Textual's screen update cap; spark's "
            "default 500) for the app and the spawned `spark`s, to compare; no docs are written."),
        only: str | None = typer.Option(
            None, "--only", help=f"Run only these phases (comma-separated: {','.join(PHASES)}); "
            "no docs are written."),
    ) -> None:
        """The TUI's speed targets: keep-up, keystroke and Esc latency, CPU, launch, memory."""
        if fps is not None:
            os.environ["TEXTUAL_FPS"] = str(fps)  # before textual is imported (run_all does)
            no_docs = True
        phases = parse_phases(only)
        if only is not None:
            no_docs = True

        plan = TuiBenchPlan.quick() if quick else TuiBenchPlan(
            samples=samples, turns=turns, launch_reps=launch_reps, pty_escs=pty_escs)
        _compile_bytecode()
        try:
            figures = run_all(plan, phases)
        except RuntimeError as exc:
            typer.echo(f"spark bench tui: {exc}", err=True)
            raise typer.Exit(1) from None
        report(table(figures), plan.command(), SECTION, docs, no_docs or quick, where=True)

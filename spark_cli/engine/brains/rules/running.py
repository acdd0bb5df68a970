"""Running what the user asks (``run the tests``, ``run X``, ``… and fix what fails``) with
``run_command``, then saying how it went; ``fix_tests`` fixes a name a rename left stale."""

from __future__ import annotations

import re
from collections.abc import Iterator

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.code.command_results import (
    CommandResult,
    parse_command,
    parse_pytest,
)
from spark_cli.engine.brains.code.lookups import Lookup, ReadWindows, call, lookups
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.looking import Look
from spark_cli.engine.brains.rules.ops.op_stale_names import fix_stale
from spark_cli.engine.brains.rules.results import CannotHelp, plural, render_result
from spark_cli.engine.brains.rules.workspace import files_and_reads

RUN_COMMAND = "run_command"
TEST_COMMAND_LINE = re.compile(r"^The project's test command: `([^`\n]+)`", re.M)
_PYTHON_FILE = re.compile(r"\w\.py\b")
_SHOWN = 10
"""Lines of a command's output an answer quotes at most."""


def test_command(request: BrainRequest, files: dict[str, str]) -> str | None:
    """The project's test command, or None: not known."""
    named = TEST_COMMAND_LINE.search(request.instructions)
    if named is not None:
        return named.group(1).strip()
    shown = any(p.endswith(".py") for p in files) or _PYTHON_FILE.search(
        request.instructions) or _PYTHON_FILE.search(request.prompt)
    return "pytest" if shown else None


def off_line(command: str) -> str:
    return (f"Running commands is off, so I cannot run {command}: start spark with "
            "`--commands ask` or `--commands sandbox`.\n")


def run_call(command: str, what: str) -> Iterator[str | BrainCall]:
    yield f"I'll run {what}: `{command}`.\n"
    yield call(RUN_COMMAND, command=command)


def runs_of(request: BrainRequest) -> list[Lookup]:
    """This turn's answered ``run_command`` calls, oldest first."""
    return [c for c in lookups(request).calls if c.name == RUN_COMMAND and c.output is not None]


def _quoted(lines: list[str] | tuple[str, ...]) -> list[str]:
    """Output lines behind a gutter, so no edit marker in them is read as the brain's own."""
    return ["```\n", *(f"│ {line}\n" for line in lines), "```\n"]


def report(command: str, output: str, *, tests: bool, lead: str = "") -> list[str]:
    """What a run came to, in a few lines (``lead`` starts the first)."""
    lines = _report(command, parse_command(output), tests=tests)
    if lead:
        lines[0] = lead + lines[0][0].lower() + lines[0][1:]
    return lines


def _report(command: str, result: CommandResult, *, tests: bool) -> list[str]:
    if result.status == "off":
        return [off_line(f"`{command}`")]
    if result.status == "declined":
        return [f"You did not allow `{command}`, so nothing ran.\n"]
    if result.status != "exit":
        shown = result.last_lines(_SHOWN)
        return [f"`{command}` did not finish: {result.head}.\n",
                *(_quoted(shown) if shown else [])]
    run = parse_pytest(result.output)
    if run.summary and (run.failed or run.errors or result.code):
        count = run.failed or run.errors
        what = plural(count, "test") + (" fails" if count == 1 else " fail") if run.failed \
            else plural(count, "error") + " stopped the tests"
        lines = [f"{what}: {run.summary}.\n"]
        lines += [f"- {line}\n" for line in run.failures[:_SHOWN]]
        lines += _quoted(run.raised[:3]) if run.raised else []
        return lines
    if run.summary:
        return [f"The tests pass: {run.summary}.\n"]
    verdict = ("The tests pass" if result.code == 0 else "The tests fail") if tests \
        else f"`{command}` finished"
    shown = result.last_lines(_SHOWN)
    return [f"{verdict} ({result.head})" + ("; the last lines:\n" if shown else ", no output.\n"),
            *(_quoted(shown) if shown else [])]


def run_turn(request: BrainRequest, instruction: Instruction,
             lead: str = "") -> Iterator[str | BrainCall]:
    """The answer to a run instruction (``lead`` starts the report)."""
    files, reads = files_and_reads(request)
    tests = instruction.kind != "run"
    answered = runs_of(request)
    runs = [str(c.output) for c in answered]
    ran = answered[-1].arguments.get("command") if answered else None
    command = ran if isinstance(ran, str) else instruction.what or test_command(request, files)
    if RUN_COMMAND not in request.tools:
        yield off_line(f"`{command}`" if command else "the tests")
        return
    if command is None:
        yield ("I do not know this project's test command: say which to run "
               "(`run pytest -q`, `run make test`).\n")
        return
    if not runs:
        yield from run_call(command, "the tests" if tests else "it")
        return
    if instruction.kind != "fix_tests":
        yield from report(command, runs[-1], tests=tests, lead=lead)
    elif len(runs) > 1:
        yield from report(command, runs[-1], tests=True, lead="After the fix, ")
    else:
        yield from _fix(request, command, runs[0], files, reads)


def _fix(request: BrainRequest, command: str, output: str, files: dict[str, str],
         reads: ReadWindows) -> Iterator[str | BrainCall]:
    """After the first run of ``fix_tests``: look, or fix and run again, or say why not."""
    first = parse_command(output)
    stale = parse_pytest(first.output).stale if first.status == "exit" else ()
    if first.status != "exit" or first.code == 0 or not stale:
        yield from report(command, output, tests=True)
        if first.status == "exit" and first.code:
            yield ("I can fix only a name left stale by a rename (a NameError or an "
                   "ImportError in the output); this is something else, so I leave it to you.\n")
        elif first.status == "exit":
            yield "Nothing to fix.\n"
        return
    try:
        fixed = fix_stale(request, stale, files, reads, output)
    except CannotHelp as exc:
        yield from report(command, output, tests=True)
        yield exc.reason + "\n"
        return
    if isinstance(fixed, Look):
        yield from fixed.answer(request)
        return
    yield from render_result(fixed, request.edit_format)
    yield from run_call(command, "the tests again")

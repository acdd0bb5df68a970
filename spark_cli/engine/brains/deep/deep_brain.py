"""The ``deep`` brain (``spark-deep``): the rules brain's instructions across the whole
request, in several steps, each on the files as the steps before left them."""

from __future__ import annotations

import re
from collections.abc import Iterator

from spark_cli.engine.brains.base import BrainCall, BrainRequest, EditFormat
from spark_cli.engine.brains.code.edit_text import render_changes
from spark_cli.engine.brains.deep.deep_looking import in_folders, look_around
from spark_cli.engine.brains.deep.op_callers import add_parameter_and_callers
from spark_cli.engine.brains.deep.steps import Step, parse_steps
from spark_cli.engine.brains.deep.tiebreak import HEAD, tiebreak
from spark_cli.engine.brains.rules.instruction_parser import (
    RUN_KINDS,
    Instruction,
    instruction_text,
    mentioned_paths,
)
from spark_cli.engine.brains.rules.looking import notes
from spark_cli.engine.brains.rules.ops.op_docstring import document_all
from spark_cli.engine.brains.rules.ops.op_explain import explain_all
from spark_cli.engine.brains.rules.ops.op_rename import rename_everywhere
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, help_lines, plural
from spark_cli.engine.brains.rules.rules_brain import OPERATIONS
from spark_cli.engine.brains.rules.running import run_turn, runs_of
from spark_cli.engine.brains.rules.workspace import files_and_reads
from spark_cli.record import record

DEEP_INSTRUCTIONS: tuple[tuple[str, str], ...] = (
    ("add docstrings to every function in a.py and b.py",
     "document every function (or class) of those files"),
    ("add a parameter x to foo and update its callers[, passing 0]",
     "change the definition and every call"),
    ("several steps, one per line or sentence", "done in order, one plan"),
    ("… and run the tests", "run the tests after the change and say how they went"),
)
_TESTS = re.compile(r"(?<!not )(?<!n't )\brun\s+(?:all\s+)?(?:the\s+)?(?:tests?|test\s+suite)\b",
                    re.I)


@record
class _Done:
    """One step of a deep task, done or not (and why not)."""

    step: Step
    result: OpResult | None
    reason: str = ""
    """Why the step was not done (``result`` is None)."""
    show_help: bool = False


def run_step(step: Step, files: dict[str, str]) -> OpResult:
    """One recognised step over ``files`` (raises :class:`CannotHelp`)."""
    instruction = step.instruction
    assert instruction is not None
    named = mentioned_paths(step.text, list(files)) or in_folders(step.text, files)
    if instruction.kind == "docstring" and instruction.name == "*":
        return document_all(instruction, files, named, step.kinds)
    if instruction.kind == "rename":
        return rename_everywhere(instruction, files, named)
    if instruction.kind == "explain":
        return explain_all(instruction, files, named)
    if instruction.kind == "add_parameter" and (step.callers or not instruction.new):
        return add_parameter_and_callers(instruction, files, named, step.value)
    return OPERATIONS[instruction.kind](instruction, files, named)


QUOTE_CHARS = 80
_IMPERATIVE = {"Renaming": "Rename", "Adding": "Add", "Deleting": "Delete",
               "Removing": "Remove", "Replacing": "Replace"}


def plan_line(lead: str) -> str:
    """A rules operation's lead (``Renaming `a` …``) as a plan item (``Rename `a` …``)."""
    first, _, rest = lead.rstrip(".:").partition(" ")
    return f"{_IMPERATIVE.get(first, first)} {rest}".rstrip()


def quoted(text: str) -> str:
    """A step as the answer quotes it: in backticks, at most :data:`QUOTE_CHARS` long."""
    text = text.replace("`", "'")
    if len(text) > QUOTE_CHARS:
        text = text[:QUOTE_CHARS - 1] + "…"
    return f"`{text}`"


def _plan(done: list[_Done]) -> Iterator[str]:
    yield "Plan:\n"
    for number, item in enumerate(done, 1):
        if item.result is not None:
            yield f"{number}. {plan_line(item.result.lead)}.\n"
        else:
            yield f"{number}. {quoted(item.step.text)}: I will skip this ({item.reason}).\n"


def _edits(number: int, total: int, result: OpResult, fmt: EditFormat) -> Iterator[str]:
    if total > 1:
        yield f"\nStep {number}: {plan_line(result.lead)}.\n"
    if result.prose:
        yield from result.prose
        return
    yield "\n"
    yield from render_changes(result.changes, fmt)


class DeepBrain:
    """Plans the task's steps and answers: what it read, a numbered plan, each step's
    edits, a summary line per step; it looks first, and may run the tests last."""

    name = "deep"
    pace = "deep"

    def answer(self, request: BrainRequest) -> Iterator[str | BrainCall]:
        if request.prompt.startswith(HEAD):
            yield from tiebreak(request.prompt)
            return
        text = instruction_text(request.prompt)
        steps, after = _split_runs(parse_steps(text), text)
        edits = any(step.instruction is not None for step in steps)
        if after is not None and (runs_of(request) or not edits):
            yield from run_turn(request, after, "After the change, " if edits else "")
            return  # only running, or the run after the change came back
        if not edits:
            yield from help_lines("I am the bundled engine's deep brain and could not match "
                                  "that to an instruction I know.", who="deep brain",
                                  extra=DEEP_INSTRUCTIONS)
            return
        files, reads = files_and_reads(request)
        look = look_around(request, steps, text, files, reads)
        if look is not None:
            yield from look.answer(request)
            return
        yield from notes(request)
        lines = sum(text.count("\n") for text in files.values())
        read = f"I read {plural(len(files), 'file')} ({plural(lines, 'line')})"
        done = _do(steps, files)
        if all(d.result is None for d in done):
            yield from _none_done(done, read)
            return
        yield f"{read} and worked out {plural(len(done), 'step')}.\n\n"
        yield from _plan(done)
        for number, item in enumerate(done, 1):
            if item.result is not None:
                yield from _edits(number, len(done), item.result, request.edit_format)
        yield "\nSummary:\n"
        for item in done:
            if item.result is not None:
                yield f"- {item.result.summary}\n"
            else:
                yield f"- Not done: {quoted(item.step.text)} ({item.reason}).\n"
        if after is not None:
            yield "\n"
            yield from run_turn(request, after)


def _split_runs(steps: list[Step], text: str) -> tuple[list[Step], Instruction | None]:
    """The steps that edit, and what to run after them."""
    runs = [s.instruction for s in steps if s.instruction and s.instruction.kind in RUN_KINDS]
    edits = [s for s in steps if not (s.instruction and s.instruction.kind in RUN_KINDS)]
    after = runs[0] if runs else Instruction("run_tests") if _TESTS.search(text) else None
    if after is not None and after.kind == "fix_tests" and any(s.instruction for s in edits):
        after = Instruction("run_tests")
    return edits, after


def _do(steps: list[Step], files: dict[str, str]) -> list[_Done]:
    """Each step done in turn, on the files as the steps before left them."""
    done: list[_Done] = []
    for step in steps:
        if step.instruction is None:
            done.append(_Done(step, None, step.skip or "not an instruction I know"))
            continue
        try:
            result = run_step(step, files)
        except CannotHelp as exc:
            done.append(_Done(step, None, exc.reason.rstrip("."), exc.show_help))
            continue
        for change in result.changes:
            files[change.path] = change.new
        done.append(_Done(step, result))
    return done


def _none_done(done: list[_Done], read: str) -> Iterator[str]:
    if len(done) == 1:  # as the rules brain says it
        if done[0].show_help:
            yield from help_lines(done[0].reason + ".", who="deep brain",
                                  extra=DEEP_INSTRUCTIONS)
        else:
            yield done[0].reason + ".\n"
        return
    yield f"{read}, but I could not do any of it:\n"
    for item in done:
        yield f"- {quoted(item.step.text)}: {item.reason}.\n"

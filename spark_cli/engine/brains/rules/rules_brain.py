"""The ``rules`` brain: deterministic edits for a documented set of instructions, answered
like a real model (a lead-in line, the edits, a summary line), or why it cannot help."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.rules.instruction_parser import (
    RUN_KINDS,
    Instruction,
    instruction_text,
    mentioned_paths,
    parse_instruction,
)
from spark_cli.engine.brains.rules.looking import look_first, notes
from spark_cli.engine.brains.rules.ops.op_definitions import add_parameter, delete_definition
from spark_cli.engine.brains.rules.ops.op_docstring import add_docstring
from spark_cli.engine.brains.rules.ops.op_explain import explain
from spark_cli.engine.brains.rules.ops.op_imports import add_import
from spark_cli.engine.brains.rules.ops.op_mcp import mcp_call
from spark_cli.engine.brains.rules.ops.op_prints import remove_prints
from spark_cli.engine.brains.rules.ops.op_rename import rename, replace_text
from spark_cli.engine.brains.rules.ops.op_spark_asks import agents_file, summary
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, help_lines
from spark_cli.engine.brains.rules.running import run_turn
from spark_cli.engine.brains.rules.slips import slipped
from spark_cli.engine.brains.rules.workspace import files_and_reads
from spark_cli.protocol.agents_file import is_init
from spark_cli.protocol.summaries import is_compaction

Operation = Callable[[Instruction, dict[str, str], list[str]], OpResult]

OPERATIONS: dict[str, Operation] = {
    "rename": rename,
    "replace": replace_text,
    "remove_prints": remove_prints,
    "add_import": add_import,
    "docstring": add_docstring,
    "delete": delete_definition,
    "add_parameter": add_parameter,
    "explain": explain,
}


class RulesBrain:
    """Recognises an instruction and runs its operation over the request's files."""

    name = "rules"
    inline_below = 2_048  # planning that much costs less than a trip to the pool

    def answer(self, request: BrainRequest) -> Iterator[str | BrainCall]:
        if is_compaction(request.instructions):
            yield from summary(request)
            return
        if is_init(request.prompt):
            yield from agents_file(request)
            return
        text = instruction_text(request.prompt)
        if (use := mcp_call(request, text)) is not None:
            yield from use
            return
        instruction = parse_instruction(text)
        if instruction is None:
            yield from help_lines("I am the bundled engine's rules brain and could not match "
                                  "that to an instruction I know.")
            return
        if instruction.kind in RUN_KINDS:
            yield from run_turn(request, instruction)
            return
        operation = OPERATIONS[instruction.kind]
        files, reads = files_and_reads(request)
        look = look_first(request, instruction, text, files, reads)
        if look is not None:
            yield from look.answer(request)
            return
        yield from notes(request)
        named = mentioned_paths(text, list(files))
        try:
            result = operation(instruction, files, named)
        except CannotHelp as exc:
            if exc.show_help:
                yield from help_lines(exc.reason)
            else:
                yield exc.reason + "\n"
            return
        yield from slipped(request, result, instruction,
                           lambda other: operation(other, files, named))

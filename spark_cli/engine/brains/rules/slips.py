"""Mistakes on purpose: ``spark engine serve --slips P`` makes the rules brain err like a
real model in a share ``P`` of its edit answers (docs/brains.md, "Slips").

The draw is seeded by the request's ``seed`` (else the engine's own random source). A slip
is one of :data:`KINDS`; one that cannot apply to the answer is replaced by one that can,
in the draw's order, and an answer none applies to is left as it is:

- ``stale_name``: a rename leaves the old name in one file (or at its last use);
- ``anchor``: one hunk's search text names a line the file does not have;
- ``indent``: a changed Python line indented past its block (Python cannot parse it;
  tree-sitter's grammar takes most indentation, so the edit lands and the tests catch it);
- ``wrong_function``: the operation is carried out on another definition of the file.
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator

from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.model.blocks import FileEdit, Hunk
from spark_cli.engine.brains.base import BrainRequest, EditFormat
from spark_cli.engine.brains.code.edit_text import FileChange, hunks_for
from spark_cli.engine.brains.code.trees import named_definitions, parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult, render_result

KINDS = ("stale_name", "anchor", "indent", "wrong_function")
Operation = Callable[[Instruction, dict[str, str], list[str]], OpResult]
_RETARGETED = frozenset({"docstring", "delete", "add_parameter"})


def slipped(request: BrainRequest, result: OpResult, instruction: Instruction,
            again: Callable[[Instruction], OpResult]) -> Iterator[str]:
    """The answer for ``result``: as it is, or with one mistake when the draw says so.
    ``again`` carries the operation out for another instruction (a wrong function)."""
    draw = random.Random(request.seed)
    if not result.changes or draw.random() >= request.slips:
        yield from render_result(result, request.edit_format)
        return
    kinds = list(KINDS)
    draw.shuffle(kinds)
    for kind in kinds:
        answer = _SLIPS[kind](result, instruction, draw, again, request.edit_format)
        if answer is not None:
            yield from answer
            return
    yield from render_result(result, request.edit_format)


def _stale_name(result: OpResult, instruction: Instruction, draw: random.Random,
                again: Callable[[Instruction], OpResult], fmt: EditFormat) -> list[str] | None:
    if instruction.kind != "rename":
        return None
    changes = list(result.changes)
    if len(changes) > 1:
        del changes[draw.randrange(len(changes))]
    else:
        splices = changes[0].splices
        if not splices or len(splices) < 2:
            return None
        changes = [FileChange.spliced(changes[0].path, changes[0].old, splices[:-1])]
    return list(render_result(dataclasses.replace(result, changes=tuple(changes)), fmt))


def _anchor(result: OpResult, instruction: Instruction, draw: random.Random,
            again: Callable[[Instruction], OpResult], fmt: EditFormat) -> list[str] | None:
    def misremember(hunk: Hunk) -> Hunk | None:
        lines = hunk.search.splitlines(keepends=True)
        solid = [i for i, line in enumerate(lines) if line.strip()]
        if not solid:
            return None
        at = draw.choice(solid)
        body = lines[at].rstrip("\r\n")
        lines[at] = body + "  # as before" + lines[at][len(body):]
        return dataclasses.replace(hunk, search="".join(lines))
    return _with_hunk(result, draw, fmt, misremember)


def _indent(result: OpResult, instruction: Instruction, draw: random.Random,
            again: Callable[[Instruction], OpResult], fmt: EditFormat) -> list[str] | None:
    changes = list(result.changes)
    places = [(i, at) for i, c in enumerate(changes) if c.path.endswith(".py")
              for at, line in enumerate(c.new.splitlines(keepends=True))
              if line.strip() and line not in c.old]
    draw.shuffle(places)
    for i, at in places:
        lines = changes[i].new.splitlines(keepends=True)
        lines[at] = "   " + lines[at]  # three spaces: past the block's own indentation
        new = "".join(lines)
        try:
            compile(new, changes[i].path, "exec", dont_inherit=True)
        except SyntaxError:  # IndentationError included: Python cannot parse it any more
            changes[i] = FileChange(changes[i].path, changes[i].old, new)
            return list(render_result(dataclasses.replace(result, changes=tuple(changes)),
                                      fmt))
    return None


def _wrong_function(result: OpResult, instruction: Instruction, draw: random.Random,
                    again: Callable[[Instruction], OpResult], fmt: EditFormat) -> list[str] | None:
    if instruction.kind not in _RETARGETED:
        return None
    others = sorted({name for change in result.changes
                     if (parsed := parse(change.path, change.old)) is not None
                     for _, name, _ in named_definitions(parsed) if name != instruction.name})
    draw.shuffle(others)
    for other in others:
        try:
            wrong = again(dataclasses.replace(instruction, name=other))
        except CannotHelp:
            continue
        if wrong.changes:  # said as the right one: the model believes it did what was asked
            return list(render_result(dataclasses.replace(wrong, lead=result.lead,
                                                          summary=result.summary), fmt))
    return None


def _with_hunk(result: OpResult, draw: random.Random, fmt: EditFormat,
               alter: Callable[[Hunk], Hunk | None]) -> list[str] | None:
    """The answer with one hunk (drawn) altered; None when ``alter`` can change none."""
    edits = [(c.path, hunks_for(c)) for c in result.changes]
    places = [(i, j) for i, (_, hunks) in enumerate(edits) for j in range(len(hunks))]
    draw.shuffle(places)
    for i, j in places:
        altered = alter(edits[i][1][j])
        if altered is not None:
            edits[i][1][j] = altered
            return [result.lead + "\n", "\n", *_render(edits, fmt), "\n", result.summary + "\n"]
    return None


def _render(edits: list[tuple[str, list[Hunk]]], fmt: EditFormat) -> Iterator[str]:
    if fmt == "apply_patch":
        yield render_apply_patch([FileEdit("update", path, tuple(hunks), "apply_patch")
                                  for path, hunks in edits])
        return
    blocks = [render_search_replace(path, h.search, h.replace, fence="")
              for path, hunks in edits for h in hunks]
    yield "\n".join(blocks)


_SLIPS = {"stale_name": _stale_name, "anchor": _anchor, "indent": _indent,
          "wrong_function": _wrong_function}

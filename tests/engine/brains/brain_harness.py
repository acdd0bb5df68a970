"""Helpers for the brains tests: ask the rules brain, parse its answer with the real
edit parser, apply it with the real applier to a tmp tree, read the files back."""

from __future__ import annotations

from pathlib import Path

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.engine.brains.base import BrainRequest, BrainTurn, EditFormat
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.protocol.files import FileBlock, render_file_blocks

FORMATS: tuple[EditFormat, ...] = ("search_replace", "apply_patch")


def request(prompt: str, files: dict[str, str], fmt: EditFormat = "search_replace",
            history: tuple[BrainTurn, ...] = ()) -> BrainRequest:
    text = prompt
    if files:
        text += "\n\n" + render_file_blocks([FileBlock(p, c) for p, c in files.items()])
    return BrainRequest("spark-rules", "", (*history, BrainTurn("user", text)), fmt)


def ask(prompt: str, files: dict[str, str], fmt: EditFormat = "search_replace",
        history: tuple[BrainTurn, ...] = ()) -> str:
    return "".join(RulesBrain().answer(request(prompt, files, fmt, history)))


def edits_of(answer: str, chunk: int = 7) -> list[FileEdit]:
    """The FileEdits in ``answer`` (fed in small chunks, as a stream); fails on a rejected block."""
    parser = EditStreamParser()
    items = []
    for i in range(0, len(answer), chunk):
        items += parser.feed(answer[i:i + chunk])
    items += parser.close()
    rejected = [i for i in items if isinstance(i, BlockRejected)]
    assert not rejected, rejected
    return [i for i in items if isinstance(i, FileEdit)]


def apply_answer(answer: str, files: dict[str, str], root: Path) -> dict[str, str]:
    """Write ``files`` under ``root``, apply every edit in ``answer``, return the files."""
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content, encoding="utf-8", newline="")
    applier = Applier(root)
    edits = edits_of(answer)
    assert edits, f"no edits in:\n{answer}"
    for edit in edits:
        outcome = applier.apply(edit)
        assert isinstance(outcome, EditApplied) and not outcome.refused, (outcome, answer)
    return {path: (root / path).read_text(encoding="utf-8") for path in files}


def run(prompt: str, files: dict[str, str], root: Path,
        fmt: EditFormat = "search_replace") -> tuple[str, dict[str, str]]:
    answer = ask(prompt, files, fmt)
    return answer, apply_answer(answer, files, root)

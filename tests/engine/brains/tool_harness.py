"""Drive a brain through tool rounds as spark's client would, over a directory tree.

:class:`RepoTools` answers ``read_file``, ``search`` and ``list_files`` in the
client's fixed formats (a stand-in for the tools package, just enough for these
tests), and ``run_command`` with the outputs a test gives it (or for real, in the
tree, with the client's first line ``exit N · 1.2 s``); :func:`converse` asks the
brain, runs its calls (applying the edits of an answer that also calls, as the
client applies them while it streams), sends the outputs back under their call ids,
and repeats until an answer without calls.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from brain_harness import edits_of

from spark_cli.edits.apply.applier import Applier
from spark_cli.engine.brains.base import (
    CALL,
    OUTPUT,
    Brain,
    BrainCall,
    BrainRequest,
    BrainTurn,
    EditFormat,
)

TOOL_NAMES = frozenset({"read_file", "search", "list_files"})
WITH_COMMANDS = TOOL_NAMES | {"run_command"}
WINDOW = 200


def glob_regex(glob: str) -> str:
    """A gitignore-style glob as a regex (``**/``, ``*``, ``{a,b}``: what the brains send)."""
    out = re.escape(glob).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*")
    out = out.replace(r"\*", "[^/]*").replace(r"\{", "(?:").replace(r"\}", ")")
    return out.replace(",", "|")


@dataclass
class RepoTools:
    root: Path
    window: int = WINDOW
    log: list[tuple[str, dict[str, object]]] = field(default_factory=list)
    outputs: list[str] | None = None
    """What ``run_command`` answers, in turn (None: run the command in ``root``)."""

    def files(self, under: str = "") -> list[str]:
        base = self.root / under if under else self.root
        return sorted(str(p.relative_to(self.root)) for p in base.rglob("*")
                      if p.is_file() and ".git" not in p.parts)

    def run(self, name: str, arguments: str) -> str:
        try:
            args = json.loads(arguments)
        except ValueError:
            return "error: arguments are not valid JSON"
        self.log.append((name, args))
        if name == "read_file":
            return self.read(args["path"], args.get("start_line", 1), args.get("end_line"))
        if name == "search":
            return self.search(args["pattern"], args.get("path", ""))
        if name == "list_files":
            listed = [p for p in self.files(args.get("path", ""))
                      if re.fullmatch(glob_regex(args.get("glob", "**")), p)]
            return "\n".join(listed) if listed else "no files"
        if name == "run_command":
            return self.outputs.pop(0) if self.outputs is not None else self.command(
                str(args["command"]))
        return f"error: unknown tool {name}"

    def command(self, line: str) -> str:
        start = time.monotonic()
        done = subprocess.run(line, shell=True, cwd=self.root, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True, errors="replace", timeout=120,
                              check=False)
        return f"exit {done.returncode} · {time.monotonic() - start:.1f} s\n{done.stdout}"

    def read(self, path: str, start: int, end: int | None) -> str:
        target = self.root / path
        if not target.is_file():
            return f"error: {path} does not exist"
        lines = target.read_text(encoding="utf-8").splitlines()
        last = min(len(lines), end or start + self.window - 1)
        out = [f"{n:>6}\t{lines[n - 1]}" for n in range(start, last + 1)]
        if start > 1 or last < len(lines):
            out.append(f"[lines {start}–{last} of {len(lines)}; ask read_file with "
                       "start_line/end_line for more]")
        return "\n".join(out)

    def search(self, pattern: str, under: str) -> str:
        compiled = re.compile(pattern)
        hits = []
        for path in self.files(under):
            text = (self.root / path).read_text(encoding="utf-8")
            hits += [f"{path}:{n}:{line}" for n, line in enumerate(text.splitlines(), 1)
                     if compiled.search(line)]
        return "\n".join(hits) if hits else "no matches"


@dataclass
class Round:
    text: str
    calls: list[BrainCall]


def answer(brain: Brain, request: BrainRequest) -> Round:
    text, calls = [], []
    for chunk in brain.answer(request):
        if isinstance(chunk, BrainCall):
            calls.append(chunk)
        else:
            assert not calls, "text after a call"
            text.append(chunk)
    return Round("".join(text), calls)


def converse(brain: Brain, prompt: str, tools: RepoTools, *, model: str = "spark-rules",
             parallel: bool = True, max_rounds: int = 10, names: frozenset[str] = TOOL_NAMES,
             instructions: str = "", fmt: EditFormat = "search_replace",
             ) -> tuple[list[Round], BrainRequest]:
    """The rounds of one turn (the last has no calls) and the last request."""
    conversation: tuple[BrainTurn, ...] = (BrainTurn("user", prompt),)
    rounds: list[Round] = []
    for number in range(max_rounds):
        request = BrainRequest(model, instructions, conversation, fmt, names, parallel)
        got = answer(brain, request)
        rounds.append(got)
        if not got.calls:
            return rounds, request
        for edit in edits_of(got.text):
            Applier(tools.root).apply(edit)
        if got.text:
            conversation += (BrainTurn("assistant", got.text),)
        ids = [f"call_{number}_{i}" for i in range(len(got.calls))]
        conversation += tuple(BrainTurn(CALL, c.arguments, i, c.name)
                              for c, i in zip(got.calls, ids, strict=True))
        conversation += tuple(BrainTurn(OUTPUT, tools.run(c.name, c.arguments), i)
                              for c, i in zip(got.calls, ids, strict=True))
    raise AssertionError("the brain never stopped calling")

"""One turn's context, within the window: what is sent, in which order, and what was left out
(the context report: plain data for a HUD)."""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.protocol.agents_file import AGENTS_FILE
from spark_cli.protocol.files import render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.context.picks import Pick, block_of, candidates, pick, take_extras
from spark_cli.session.context.repo_map import (
    MAP_HEADER,
    NO_MAP,
    Outline,
    map_section,
    repo_map,
    smaller_map,
)
from spark_cli.session.context.targets import MAX_FILES, RequestError, TargetFile, scan

if TYPE_CHECKING:
    from spark_cli.session.context.index import RepoIndex

__all__ = ["MAP_HEADER", "Assembled", "Budget", "assemble"]

OUTSIDE_GIT_FILES = 2_000


@record
class Budget:
    """The window a request must fit, and what is kept back for the answer."""

    window: int
    reserved: int
    scale: float = 1.0
    """The server's tokens per spark token (``Settings.token_scale``)."""
    firm: bool = True
    """False: the window is a hint: trimmed to, a request over it is sent anyway."""

    @property
    def limit(self) -> int:
        """What may be sent, in the server's tokens."""
        return max(0, self.window - self.reserved)

    @property
    def cap(self) -> int:
        """What may be sent, in spark's tokens (``protocol.tokens``)."""
        return int(self.limit / self.scale) if self.scale > 0 else self.limit

    def tokens(self, pieces: int) -> int:
        """``pieces`` spark tokens as the server's (rounded up)."""
        return math.ceil(pieces * self.scale) if self.scale != 1.0 else pieces


@record
class ContextFile:
    """One file of the context report: why it was picked, its tokens (0: the model already has
    this exact content, not re-sent)."""

    path: str
    why: str
    """``added``, ``named in the prompt`` or ``mentions <symbol>``."""
    tokens: int


@record
class ContextReport:
    """What a request holds: the window, the budget, tokens per part (in the order they
    travel), the files; a sentence per thing left out to fit (``trimmed``) or for another
    reason (``notes``)."""

    window: int
    budget: int
    """The window less what is kept for the answer: the most a request may hold."""
    used: int
    parts: dict[str, int]
    files: tuple[ContextFile, ...]
    map: Outline
    trimmed: tuple[str, ...]
    notes: tuple[str, ...]


@record
class Assembled:
    """A turn's user message, fitted to the window, and what went into it."""

    targets: tuple[TargetFile, ...]
    sent: tuple[str, ...]
    content: str
    total: int
    report: ContextReport


def assemble(root: Path, budget: Budget, explicit: Sequence[TargetFile], instruction: str, *,
             instructions: str, agents: str | None, history_tokens: int,
             known: Mapping[str, str], with_map: bool, tools_tokens: int) -> Assembled:
    """The user message within ``budget`` (docs/context.md); ``RequestError`` if it cannot fit."""
    picks = [pick(t, "added", known) for t in explicit]
    in_chat = {t.path for t in explicit}
    system_tokens = count_tokens(instructions)
    fixed = system_tokens + history_tokens + tools_tokens
    base = compose(picks, instruction, "")
    base_total = fixed + count_tokens(base)
    agents_tokens = count_tokens(agents or "")
    parts = {"instructions": system_tokens - agents_tokens, "AGENTS.md": agents_tokens,
             "tools": tools_tokens, "history": history_tokens,
             "files": sum(p.tokens for p in picks),
             "references": 0, "map": 0, "prompt": count_tokens(instruction)}
    trimmed: list[str] = []
    notes: list[str] = []
    content, total, outline, repo = base, base_total, NO_MAP, None
    if base_total > budget.cap:
        if budget.firm:
            raise _over_budget(parts, picks, base_total, budget)
        notes.append(f"sent beyond the {budget.window:,}-token window spark assumed (it is "
                     "not the server's word): the server's answer will tell")
    elif not _only(root, in_chat):  # outside a git checkout: at most OUTSIDE_GIT_FILES
        repo = scan(root, max_files=MAX_FILES if (root / ".git").exists() else OUTSIDE_GIT_FILES)
    if repo is not None and any(path not in in_chat for path in repo.paths()):
        from spark_cli.session.context.index import index_for  # deferred: launch -> request

        index = index_for(root)
        found = candidates(root, repo, index, instruction, in_chat, known, notes)
        room = take_extras(picks, found, budget.cap - base_total, trimmed)
        if with_map:
            outline = repo_map(index, picks, instruction, window=budget.window,
                               cap=budget.cap, room=room, trimmed=trimmed)
        content, total, outline = _fit(index, picks, len(explicit), instruction, outline,
                                       fixed, budget.cap, trimmed)
    report = _report(budget, parts, picks, total, outline, trimmed, notes)
    return Assembled(tuple(p.target for p in picks),
                     tuple(p.target.path for p in picks if p.fresh),
                     content, total, report)


def compose(picks: Sequence[Pick], instruction: str, outline: str) -> str:
    """The user message: the map (when ``outline`` has one), the fresh files, the instruction."""
    blocks = [block_of(p.target) for p in picks if p.fresh]
    message = instruction.strip() + "\n"
    if blocks:
        message = render_file_blocks(blocks) + "\n" + message
    return map_section(outline) + "\n" + message if outline else message


def _over_budget(parts: Mapping[str, int], picks: Sequence[Pick], total: int,
                 budget: Budget) -> RequestError:
    named = [("the system prompt", parts["instructions"]), (AGENTS_FILE, parts["AGENTS.md"]),
             ("the tool definitions", parts["tools"]),
             *((p.target.path, p.tokens) for p in picks),
             ("the instruction", parts["prompt"]), ("the earlier conversation", parts["history"])]
    biggest = sorted(named, key=lambda item: item[1], reverse=True)[:3]
    said = "; ".join(f"{name} is {budget.tokens(tokens):,} tokens" for name, tokens in biggest
                     if tokens)
    return RequestError(
        "budget",
        f"the request does not fit: {said}; the window is {budget.window:,} tokens "
        f"with {budget.reserved:,} kept for the answer, so at most "
        f"{budget.limit:,} may be sent and this request is {budget.tokens(total):,}. "
        "Nothing was sent: name fewer or smaller files, or raise context_window.",
    )


def _only(root: Path, files: set[str]) -> bool:
    """``root`` holds exactly ``files`` (the pipe's temp dir): one ``scandir``, nothing more."""
    try:
        with os.scandir(root) as entries:
            return {e.name for e in entries} == files
    except OSError:
        return False


def _fit(index: RepoIndex, picks: list[Pick], named: int, instruction: str, outline: Outline,
         fixed: int, cap: int, trimmed: list[str]) -> tuple[str, int, Outline]:
    """The message, its total and the map within ``cap``: the map shrunk, then extras dropped."""
    content = compose(picks, instruction, outline.text)
    total = fixed + count_tokens(content)
    while total > cap and outline.text:  # joins counted apart: shrink, recount
        outline = smaller_map(index, picks, instruction, outline, total - cap)
        content = compose(picks, instruction, outline.text)
        total = fixed + count_tokens(content)
    while total > cap and len(picks) > named:  # never: the slack covers it
        dropped = picks.pop()
        trimmed.append(f"{dropped.target.path} ({dropped.why}) left out to fit the window")
        content = compose(picks, instruction, outline.text)
        total = fixed + count_tokens(content)
    return content, total, outline


def _report(budget: Budget, parts: dict[str, int], picks: Sequence[Pick], total: int,
            outline: Outline, trimmed: Sequence[str], notes: Sequence[str]) -> ContextReport:
    """What the request holds, part by part, in the server's tokens."""
    parts["files"] = sum(p.tokens for p in picks if not p.is_reference)
    parts["references"] = sum(p.tokens for p in picks if p.is_reference)
    parts["map"] = count_tokens(map_section(outline.text)) if outline.text else 0
    if budget.scale != 1.0:
        parts = {name: budget.tokens(n) for name, n in parts.items()}
    return ContextReport(
        window=budget.window, budget=budget.limit, used=budget.tokens(total), parts=parts,
        files=tuple(ContextFile(p.target.path, p.why, budget.tokens(p.tokens))
                    for p in picks),
        map=replace(outline, tokens=parts["map"]), trimmed=tuple(trimmed), notes=tuple(notes))

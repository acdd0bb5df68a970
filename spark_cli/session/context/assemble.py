"""One turn's context, within the window: what is sent, in which order, and what was left out.

The user message is, in this order: the repo map (a ``~~~`` fenced outline
under one header line), the files (each as a file block), the instruction.
Which files, by priority:

1. the files the caller gives (``spark edit FILE...``, the TUI's ``/add``):
   a problem with one is a :class:`RequestError`, nothing is sent;
2. files the prompt names (:mod:`.mentions`) that exist in the repo;
3. files that mention a symbol the prompt names (``rename total_price to
   cart_total`` brings every file that spells ``total_price``), definers
   first, at most ``MAX_REFERENCING``;
4. the repo map, ranked toward all of the above and the prompt's
   identifiers, in ``MAP_TOKENS`` (twice that when no file is sent).

The cap is ``window - max_output_tokens``. Items 1 and the instructions,
AGENTS.md, history and prompt must fit or the request is refused (as
before). Then the map is cut first, then files of 3, then of 2 are left
out, each with a sentence in the report's ``trimmed``; the final text is
counted again, so the request never exceeds the cap.

The map is not part of what the conversation keeps (``remembered``): every
turn sends a fresh one, and the history does not grow by a map per turn.
When the repo has no file besides those sent (a pipe's private temp dir),
nothing is scanned or parsed: no map, no extra files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from spark_cli.protocol.files import FileBlock, render_file_block, render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.context.index import RepoIndex, index_for
from spark_cli.session.context.mentions import identifiers, named_files, symbols
from spark_cli.session.context.outline import Outline, fit
from spark_cli.session.context.rank import rank_definitions
from spark_cli.session.context.report import ContextFile, ContextReport, MapSummary
from spark_cli.session.context.scan import scan
from spark_cli.session.context.sources import language_for_path
from spark_cli.session.targets import AGENTS_FILE, RequestError, TargetFile, read_target

MAP_TOKENS = 4_096
MIN_MAP_TOKENS = 128
"""Less room than this: no map at all (a dozen signatures help nobody)."""
MAX_REFERENCING = 30
MAP_HEADER = ("Repository map: signature lines of the most referenced definitions in files "
              "not shown in full here (skipped lines marked ⋮). Ask for a file before "
              "editing it.\n")
_BLOCK_SLACK = 4  # tokens a block may add at its joins (separators, merged pieces)


@dataclass(frozen=True, slots=True)
class Budget:
    window: int
    reserved: int

    @property
    def cap(self) -> int:
        return max(0, self.window - self.reserved)


@dataclass(frozen=True, slots=True)
class Assembled:
    targets: tuple[TargetFile, ...]
    sent: tuple[str, ...]
    content: str
    """The user message as sent (map, files, instruction)."""
    remembered: str
    """The same without the map: what the conversation keeps."""
    total: int
    report: ContextReport


@dataclass(slots=True)
class _Pick:
    target: TargetFile
    why: str
    tokens: int
    fresh: bool


def _pick(target: TargetFile, why: str, known: Mapping[str, str]) -> _Pick:
    fresh = known.get(target.path) != target.sha256
    block = render_file_block(_block(target)) if fresh else ""
    return _Pick(target, why, count_tokens(block) if fresh else 0, fresh)


def _block(target: TargetFile) -> FileBlock:
    return FileBlock(target.path, target.text, language_for_path(target.path) or "")


def map_section(text: str) -> str:
    """The map as it travels: the header line, then the outline in a ``~~~`` fence (a
    fence that file-block parsers skip and that never looks like a file block)."""
    fence = "~" * max(3, 1 + max((len(r) for r in text.split("\n") if set(r) == {"~"}),
                                 default=0))
    return f"{MAP_HEADER}{fence}\n{text}{fence}\n"


def compose(picks: Sequence[_Pick], instruction: str, outline: str) -> tuple[str, str]:
    """(the message as sent, the message as remembered)."""
    blocks = [_block(p.target) for p in picks if p.fresh]
    remembered = instruction.strip() + "\n"
    if blocks:
        remembered = render_file_blocks(blocks) + "\n" + remembered
    return (map_section(outline) + "\n" + remembered if outline else remembered), remembered


def assemble(root: Path, budget: Budget, explicit: Sequence[TargetFile], instruction: str, *,
             instructions: str, agents: str | None, history_tokens: int,
             known: Mapping[str, str], map_tokens: int | None = None,
             index: RepoIndex | None = None) -> Assembled:
    """The turn's context (see the module docstring); ``RequestError`` when it cannot fit."""
    picks = [_pick(t, "added", known) for t in explicit]
    in_chat = {t.path for t in explicit}
    system_tokens = count_tokens(instructions)
    fixed = system_tokens + history_tokens
    _, base = compose(picks, instruction, "")
    base_total = fixed + count_tokens(base)
    agents_tokens = count_tokens(agents or "")
    parts = {"instructions": system_tokens - agents_tokens, "AGENTS.md": agents_tokens,
             "history": history_tokens, "files": sum(p.tokens for p in picks),
             "references": 0, "map": 0, "prompt": count_tokens(instruction)}
    if base_total > budget.cap:
        raise _over_budget(parts, picks, base_total, budget)
    trimmed: list[str] = []
    notes: list[str] = []
    room = budget.cap - base_total
    outline = Outline("", 0, 0, 0, 0)
    repo = scan(root)
    if any(path not in in_chat for path in repo.paths()):
        named = named_files(instruction, repo.paths())
        for said, could in named.ambiguous:
            notes.append(f"{said} could be {' or '.join(could)}: name the path to send it")
        extra = _read_extra(root, [(p, "named in the prompt") for p in named.found
                                   if p not in in_chat], known, notes)
        index = index or index_for(root)
        index.refresh(repo)
        extra += _read_extra(root, _referencing(index, instruction, in_chat | set(named.found),
                                                notes), known, notes)
        for pick in sorted(extra, key=lambda p: p.why != "named in the prompt"):
            cost = pick.tokens + _BLOCK_SLACK if pick.fresh else 0
            if cost <= room:
                picks.append(pick)
                room -= cost
            else:
                trimmed.append(f"{pick.target.path} ({pick.why}) left out: its {pick.tokens:,} "
                               f"tokens do not fit in the {room:,} left of the window")
        wanted = map_tokens if map_tokens is not None else (
            MAP_TOKENS if any(p.fresh for p in picks) else 2 * MAP_TOKENS)
        if wanted > 0:
            outline = _map(index, picks, instruction, wanted, room, trimmed)
    content, remembered = compose(picks, instruction, outline.text)
    total = fixed + count_tokens(content)
    while total > budget.cap and outline.text:  # joins counted differently: shrink, recount
        outline = fit_smaller(index, picks, instruction, outline, total - budget.cap)
        content, remembered = compose(picks, instruction, outline.text)
        total = fixed + count_tokens(content)
    parts["files"] = sum(p.tokens for p in picks if not p.why.startswith("mentions "))
    parts["references"] = sum(p.tokens for p in picks if p.why.startswith("mentions "))
    parts["map"] = count_tokens(map_section(outline.text)) if outline.text else 0
    report = ContextReport(
        window=budget.window, reserved_for_answer=budget.reserved, budget=budget.cap,
        used=total, parts=parts,
        files=tuple(ContextFile(p.target.path, p.why, p.tokens, p.fresh) for p in picks),
        map=MapSummary(parts["map"], outline.files, outline.definitions, outline.available),
        trimmed=tuple(trimmed), notes=tuple(notes))
    return Assembled(tuple(p.target for p in picks), tuple(p.target.path for p in picks
                                                            if p.fresh),
                     content, remembered, total, report)


def _referencing(index: RepoIndex, instruction: str, in_chat: set[str],
                 notes: list[str]) -> list[tuple[str, str]]:
    """(path, why) for files that mention a symbol the instruction names, definers first."""
    definers = index.definers()
    found: dict[str, str] = {}
    for symbol in symbols(instruction, definers):
        where = [*definers.get(symbol, ()),
                 *(p for p in index.mentioning(symbol) if p not in definers.get(symbol, ()))]
        fresh = [p for p in where if p not in in_chat and p not in found]
        room = MAX_REFERENCING - len(found)
        for path in fresh[:room]:
            found[path] = f"mentions {symbol}"
        if len(fresh) > room:
            notes.append(f"{len(fresh) - room} more files mention {symbol} and were not sent "
                         f"(at most {MAX_REFERENCING} such files per turn)")
    return list(found.items())


def _read_extra(root: Path, wanted: Sequence[tuple[str, str]], known: Mapping[str, str],
                notes: list[str]) -> list[_Pick]:
    picks: list[_Pick] = []
    for path, why in wanted:
        try:
            picks.append(_pick(read_target(root, path), why, known))
        except RequestError as exc:
            why_not = exc.message.removesuffix("; nothing was sent")
            notes.append(f"{path} ({why}) not sent: {why_not}")
    return picks


def _map(index: RepoIndex, picks: Sequence[_Pick], instruction: str, wanted: int, room: int,
         trimmed: list[str]) -> Outline:
    header = count_tokens(map_section("")) + 2
    space = min(wanted, room - header)
    chosen = {p.target.path for p in picks if not p.why.startswith("mentions ")}
    ranked = rank_definitions(index.tags, chat={p.target.path for p in picks}, named=chosen,
                              mentioned=identifiers(instruction))
    if not ranked:
        return Outline("", 0, 0, 0, 0)
    if space < MIN_MAP_TOKENS:
        trimmed.append(f"repo map left out: only {max(0, room):,} tokens of the window are "
                       "left after the files")
        return Outline("", 0, 0, 0, len(ranked))
    outline = fit(ranked, space)
    if space < wanted and outline.definitions < outline.available:
        trimmed.append(f"repo map cut to {space:,} tokens (of {wanted:,}) to fit the window: "
                       f"{outline.definitions:,} of {outline.available:,} definitions shown")
    return outline


def fit_smaller(index: RepoIndex | None, picks: Sequence[_Pick], instruction: str,
                outline: Outline, excess: int) -> Outline:
    """The map again, ``excess`` (+ a margin) tokens smaller; empty when nothing is left."""
    if index is None or outline.tokens <= excess + 16:
        return Outline("", 0, 0, 0, outline.available)
    ranked = rank_definitions(index.tags, chat={p.target.path for p in picks},
                              mentioned=identifiers(instruction))
    return fit(ranked, outline.tokens - excess - 16)


def _over_budget(parts: Mapping[str, int], picks: Sequence[_Pick], total: int,
                 budget: Budget) -> RequestError:
    named = [("the system prompt", parts["instructions"]), (AGENTS_FILE, parts["AGENTS.md"]),
             *((p.target.path, p.tokens) for p in picks),
             ("the instruction", parts["prompt"]), ("the earlier conversation", parts["history"])]
    biggest = sorted(named, key=lambda item: item[1], reverse=True)[:3]
    said = "; ".join(f"{name} is {tokens:,} tokens" for name, tokens in biggest if tokens)
    return RequestError(
        "budget",
        f"the request does not fit: {said}; the window is {budget.window:,} tokens "
        f"with {budget.reserved:,} kept for the answer, so at most "
        f"{budget.cap:,} may be sent and this request is {total:,}. "
        "Nothing was sent: name fewer or smaller files, or raise context_window.",
    )

"""A compaction's parts: where it cuts the conversation, the request for the summary, and the
one message that stands for the older turns: the summary (cut to its budget), then spark's own
ledger (what the user asked, the files edited re-read from disk, the commands run)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from spark_cli.edits.model.blocks import FileEdit
from spark_cli.protocol.channel import ConversationItem, Message, ToolCall, ToolOutput, TurnRequest
from spark_cli.protocol.files import FileBlock, render_file_blocks
from spark_cli.protocol.summaries import COMPACT_INSTRUCTIONS, FOCUS_PREFIX, SUMMARY_HEAD
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.tool_outputs import cut_output

SUMMARY_SHARE = 0.12
"""Of the input budget, what the model's summary may take."""
LEDGER_FILES_SHARE = 0.15
"""Of the input budget, what the edited files' current content may take in the ledger."""
CUT_NOTE = "[summary cut to fit its budget: {kept:,} of {total:,} tokens kept]"
ASK = ("Summarise the conversation above for the assistant that carries it on. Its {turns} "
       "turn{s} will be replaced by your summary.")
ASKED_CHARS = 200
LAST_ASKED_CHARS = 4_000
"""The latest ask is kept whole (up to this): a long turn may fold its own message."""
LEDGER_HEAD = "What spark recorded of those turns (not the model's summary):"


def is_summary(item: ConversationItem) -> bool:
    return type(item) is Message and item.role == "user" and item.content.startswith(SUMMARY_HEAD)


def turn_starts(history: Sequence[ConversationItem]) -> list[int]:
    """Where each turn starts (a user's message; an earlier summary is none)."""
    return [i for i, item in enumerate(history)
            if type(item) is Message and item.role == "user" and not is_summary(item)]


def split_at(history: Sequence[ConversationItem], keep_turns: int) -> int | None:
    """The first item kept when the last ``keep_turns`` turns stay whole (None: nothing to do)."""
    start = 1 if history and is_summary(history[0]) else 0
    starts = turn_starts(history)
    if keep_turns and len(starts) <= keep_turns:
        return None
    cut = starts[-keep_turns] if keep_turns else len(history)
    return cut if cut > start else None


def budgets(settings: Settings) -> tuple[int, int]:
    """The summary's and the ledger files' budgets, in spark's tokens."""
    room = settings.input_budget / max(settings.token_scale, 1e-9)
    return max(128, int(room * SUMMARY_SHARE)), max(256, int(room * LEDGER_FILES_SHARE))


def compaction_request(settings: Settings, history: Sequence[ConversationItem], cut: int,
                       focus: str) -> TurnRequest:
    """What asks the model (``compact_model`` when set) to summarise ``history[:cut]``."""
    turns = len(turn_starts(history[:cut]))
    ask = ASK.format(turns=turns, s="s" if turns != 1 else "")
    if focus.strip():
        ask += f"\n{FOCUS_PREFIX}{focus.strip()}"
    summary_room, _ = budgets(settings)
    return TurnRequest(model=settings.compact_model or settings.provider.model,
                       messages=(*history[:cut], Message("user", ask)),
                       instructions=COMPACT_INSTRUCTIONS, max_output_tokens=2 * summary_room)


def summary_message(settings: Settings, root: Path, history: Sequence[ConversationItem],
                    cut: int, written: str) -> tuple[str, bool]:
    """The message for ``history[:cut]`` (summary, then ledger) and whether the summary was cut."""
    summary_room, file_room = budgets(settings)
    written = written.strip()
    shown = cut_output(written, summary_room)
    cut_short = shown != written
    if cut_short:
        shown = shown.rsplit("\n[output cut", 1)[0].rstrip()
        shown += "\n" + CUT_NOTE.format(kept=count_tokens(shown), total=count_tokens(written))
    book = ledger(history[:cut], root, file_room, keep=history[cut:])
    return f"{SUMMARY_HEAD}\n{shown}\n\n{book}\n", cut_short


def asked_text(content: str, limit: int = ASKED_CHARS) -> str:
    """A user message's own words: what follows its last fenced block (files, map)."""
    lines = content.strip().splitlines()
    last_fence = max((i for i, line in enumerate(lines)
                      if line.startswith(("```", "~~~"))), default=-1)
    text = " ".join(line.strip() for line in lines[last_fence + 1:] if line.strip())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def edited_files(items: Sequence[ConversationItem]) -> list[str]:
    """The files the assistant's answers edited, in the order first edited."""
    from spark_cli.edits.formats.stream_parser import EditStreamParser  # deferred: startup

    paths: list[str] = []
    for item in items:
        if type(item) is not Message or item.role != "assistant":
            continue
        parser = EditStreamParser()
        for parsed in (*parser.feed(item.content), *parser.close()):
            if type(parsed) is FileEdit:
                for path in (parsed.path, parsed.move_to):
                    if path and path not in paths:
                        paths.append(path)
    return paths


def commands_run(items: Sequence[ConversationItem]) -> list[str]:
    """``command → status`` for each ``run_command`` call (the status line of its output)."""
    status = {item.call_id: (item.output.splitlines() or ["?"])[0]
              for item in items if type(item) is ToolOutput}
    lines = []
    for item in items:
        if type(item) is ToolCall and item.name == "run_command":
            try:
                command = str(json.loads(item.arguments).get("command", item.arguments))
            except (ValueError, AttributeError):
                command = item.arguments
            lines.append(f"`{command[:120]}` → {status.get(item.call_id, 'no result')}")
    return lines


def ledger(items: Sequence[ConversationItem], root: Path, file_room: int,
           keep: Sequence[ConversationItem] = ()) -> str:
    """The ledger of ``items``, with the edited files not in ``keep`` as they are now."""
    asks = [item.content for item in items if type(item) is Message and item.role == "user"
            and not item.content.startswith(SUMMARY_HEAD)]
    asked = [asked_text(text, LAST_ASKED_CHARS if n == len(asks) - 1 else ASKED_CHARS)
             for n, text in enumerate(asks)]
    out = [LEDGER_HEAD, "The user asked:"]
    out += [f"- {text}" for text in asked if text] or ["- (nothing new)"]
    edited = edited_files(items)
    if edited:
        out.append("Files edited: " + ", ".join(edited))
    commands = commands_run(items)
    if commands:
        out += ["Commands run:", *(f"- {line}" for line in commands)]
    kept = "\n".join(item.content for item in keep if type(item) is Message)
    return "\n".join([*out, *_current(root, [p for p in edited if f"\n{p}\n" not in kept],
                                       file_room)])


def _current(root: Path, paths: list[str], room: int) -> list[str]:
    """The current content of ``paths`` as file blocks, within ``room`` tokens."""
    blocks: list[FileBlock] = []
    out: list[str] = []
    for path in paths:
        file = (root / path).resolve()
        if not file.is_relative_to(root) or not file.is_file():
            continue
        try:
            text = file.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        left = room - sum(count_tokens(b.content) for b in blocks)
        if left < 64:
            out.append(f"(not shown, no room left: {path})")
            continue
        blocks.append(FileBlock(path, cut_output(text, left)))
    if blocks:
        out += ["Their current content, re-read from disk:", render_file_blocks(blocks)]
    return out

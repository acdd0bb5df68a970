"""Building one turn's request: instructions, AGENTS.md, the context, the ask, the budget.

The session remembers what the model saw (path -> text and sha256), so a later turn re-sends
only files that changed; which files fit is ``session.context.assemble``'s (docs/context.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from spark_cli.protocol.channel import ConversationItem, Message, ToolSpec, TurnRequest
from spark_cli.protocol.summaries import SUMMARY_HEAD
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.building.instructions import system_instructions
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.assemble import MAP_HEADER, assemble
from spark_cli.session.context.report import ContextReport
from spark_cli.session.context.targets import (
    TargetFile,
    read_agents_md,
    read_target,
)
from spark_cli.session.context.tool_outputs import drop_turns, items_tokens, shrink_outputs
from spark_cli.session.extensions.skills import load_skills, skills_text
from spark_cli.session.tool_access import tool_specs
from spark_cli.session.window.plan import Plan, budget_of, plan_for, short_spec


@record
class BuiltRequest:
    """One turn's request, with what went into it and its size."""

    request: TurnRequest
    user_message: Message
    """The new message this turn adds to the conversation (exactly as sent)."""
    targets: tuple[TargetFile, ...]
    sent: tuple[str, ...]
    """The paths whose content went into this request (unchanged files are not re-sent)."""
    input_tokens: int
    """The request's size in the server's tokens (spark's count x ``token_scale``)."""
    context: ContextReport
    """What the request holds, part by part, and what was trimmed (for a HUD)."""
    pieces: int = 0
    """The same in spark's own tokens (``protocol.tokens``), before scaling."""
    history: tuple[ConversationItem, ...] | None = None
    """The history as sent when old tool outputs were shortened to fit (None: as given)."""
    full_tokens: int = 0
    """What ``input_tokens`` would be with the history as given (nothing shortened)."""


HISTORY_ROOM = 4_096
"""Tokens kept for a new turn's files when old tool outputs are shortened (≤ ¼ of the room)."""


def build_request(settings: Settings, root: Path, files: Sequence[str], instruction: str, *,
                  history: Sequence[ConversationItem] = (),
                  already_sent: Mapping[str, str] | None = None,
                  extra_tools: tuple[ToolSpec, ...] = (), drop_note: str = "") -> BuiltRequest:
    """The whole request for one turn, checked against the budget (a ``RequestError`` otherwise).

    ``user_message`` is exactly the message sent, so each turn's messages extend the last one's
    and a chaining channel sends only the new one. A history too long for the window has its
    oldest tool outputs shortened, then its oldest turns left out (``BuiltRequest.history``)."""
    targets: list[TargetFile] = []
    for raw in files:
        target = read_target(root, raw)
        if all(t.path != target.path for t in targets):
            targets.append(target)
    agents = read_agents_md(root)
    plan = plan_for(settings)
    instructions = _instructions(settings, plan, agents, Path(root))
    tools = (*_tools(settings), *extra_tools) if plan.tools else ()
    tools_tokens = _specs_tokens(tools)
    history = tuple(history)
    history_tokens = items_tokens(history)
    budget = budget_of(settings)
    shortened: tuple[ConversationItem, ...] | None = None
    dropped_turns = freed = 0
    if history:
        # in spark's tokens against the cap scaled to the server's tokenizer
        essentials = (count_tokens(instructions) + tools_tokens + count_tokens(instruction)
                      + sum(count_tokens(t.text) for t in targets)
                      + min(HISTORY_ROOM, budget.cap // 4))
        excess = history_tokens + essentials - budget.cap
        if excess > 0:  # old tool outputs go first, then the oldest whole turns
            items, freed = shrink_outputs(history, excess)
            if freed < excess:
                items, more, dropped_turns = drop_turns(items, excess - freed)
                freed += more
            if freed:
                history, shortened = tuple(items), tuple(items)
                history_tokens -= freed
    # a conversation that has a map keeps it: its prefix (chaining) stays stable
    with_map = plan.repo_map and not _map_in(history)
    built = assemble(Path(root), budget,
                     targets, instruction, instructions=instructions, agents=agents,
                     history_tokens=history_tokens, known=already_sent or {},
                     with_map=with_map, tools_tokens=tools_tokens)
    user_message = Message("user", built.content)
    request = TurnRequest(
        model=settings.provider.model,
        messages=(*history, user_message),
        instructions=instructions,
        max_output_tokens=settings.max_output_tokens,
        tools=tools,
    )
    report = built.report
    if dropped_turns:
        said = f"the {dropped_turns:,} oldest turn{'s' if dropped_turns > 1 else ''}"
        report = replace(report, trimmed=(f"{said} of the conversation left out to fit "
                                          f"the window{drop_note}", *report.trimmed))
    return BuiltRequest(request, user_message, built.targets, built.sent,
                        budget.tokens(built.total), report, built.total, shortened,
                        budget.tokens(built.total + freed))


def _instructions(settings: Settings, plan: Plan, agents: str | None, root: Path) -> str:
    """The system instructions every turn of this session carries (the same each turn)."""
    commands = plan.tools and settings.commands != "off"
    test = None
    if commands:
        from spark_cli.checks.detect import detect_test_command  # deferred: launch -> request

        found = detect_test_command(root, settings.test_command)
        test = found.display if found is not None else None
    text = system_instructions(settings.edit_format, agents, tools=plan.tools,
                               commands=commands, test_command=test, short=plan.short,
                               note=plan.note)
    skills = skills_text(load_skills(root))
    return f"{text.rstrip()}\n\n{skills}\n" if skills else text


def _tools(settings: Settings) -> tuple[ToolSpec, ...]:
    plan = plan_for(settings)
    if not plan.tools:
        return ()
    specs = tool_specs(commands=settings.commands != "off")
    return tuple(map(short_spec, specs)) if plan.short else specs


def _specs_tokens(specs: Sequence[ToolSpec]) -> int:
    """What the tool definitions cost in the window (their JSON, as the wire carries it)."""
    return sum(count_tokens(json.dumps({"name": s.name, "description": s.description,
                                         "parameters": s.parameters})) for s in specs)


def warm_request(settings: Settings, root: Path) -> TurnRequest:
    """What a session sends ahead of its first turn: the instructions, no message yet."""
    instructions = _instructions(settings, plan_for(settings), read_agents_md(root), root)
    return TurnRequest(model=settings.provider.model, messages=(), instructions=instructions,
                       max_output_tokens=settings.max_output_tokens, tools=_tools(settings))


def _map_in(history: Sequence[ConversationItem]) -> bool:
    """An earlier message carries the repo map (sent once per conversation)."""
    return any(type(m) is Message and m.role == "user" and (
        MAP_HEADER in m.content or m.content.startswith(SUMMARY_HEAD)) for m in history)

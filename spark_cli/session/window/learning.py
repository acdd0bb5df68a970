"""What an overflow answer teaches (the window and the token scale, cached for the next run),
the one resend within it (both front ends), and the server's own count of a request."""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import replace

from spark_cli.protocol.channel import ChannelError, Message, ToolCall, ToolOutput, TurnRequest
from spark_cli.session.api import SessionApi
from spark_cli.session.config.settings import Settings, with_window
from spark_cli.session.events import TurnFailed
from spark_cli.session.window.facts import (
    LEARNED_NOW,
    UNKNOWN,
    cached,
    forget,
    remember,
    store,
)

MARGIN = 1.02
NEAR_CAP = 0.8
"""A built request over this share of what may be sent is counted by the server."""
TEMPLATE_TOKENS = 8
"""Tokens a chat template adds per message (role markers), counted on top."""
Count = Callable[[str, str, str, "str | None", str], "int | None"]
"""``count(base_url, tokenizer, model, api_key, text)``: the server's tokens (the probe's)."""


def learn(settings: Settings, failure: ChannelError | None, pieces: int) -> Settings | None:
    """``settings`` with what an overflow of ``pieces`` spark tokens taught (None: nothing)."""
    if failure is None or failure.kind != "context_length" or failure.overflow is None:
        return None
    overflow = failure.overflow
    scale = settings.token_scale
    if overflow.requested and pieces > 0:
        scale = max(scale, round(overflow.requested / pieces * MARGIN, 3))
    window = overflow.window
    if window and (window != settings.context_window
                   or settings.sources.get("context_window") != LEARNED_NOW):
        return with_window(settings, window, LEARNED_NOW, token_scale=scale)
    if scale != settings.token_scale:
        return replace(settings, token_scale=scale)
    return None


def beyond_hint(settings: Settings, sent: int) -> Settings | None:
    """The settings with a learned window forgotten when ``sent`` went beyond it, or None."""
    source = settings.sources.get("context_window", "")
    if sent <= settings.context_window or not (source == LEARNED_NOW
                                               or source.startswith("learned ")):
        return None
    return forget(settings)


def after_turn(settings: Settings, failure: ChannelError | None, pieces: int,
               sent: int) -> Settings:
    """The settings a turn leaves (`learn` on an overflow, `beyond_hint` on a success)."""
    learned = learn(settings, failure, pieces)
    if learned is not None:
        remember(learned)
        return learned
    return settings if failure is not None else beyond_hint(settings, sent) or settings


RESEND = ("sending once more within {window:,} tokens (the repo map, old tool outputs and old "
          "turns trimmed first)")


def resend_note(session: SessionApi, sent_with: Settings, failure: TurnFailed | None, *,
                wrote: bool) -> str | None:
    """The overflow in one sentence when the turn is to be sent once more (None: it is not)."""
    if failure is None or failure.kind != "context_length" or wrote \
            or session.settings == sent_with or session.marks.first_output_at is not None:
        return None
    return failure.message.split("; the server said", 1)[0]


def request_text(request: TurnRequest) -> str:
    """What a chat template renders, near enough."""
    parts = [request.instructions]
    parts.extend(json.dumps({"name": s.name, "description": s.description,
                             "parameters": s.parameters}) for s in request.tools)
    for item in request.messages:
        if type(item) is Message:
            parts.append(item.content)
        elif type(item) is ToolCall:
            parts.extend((item.name, item.arguments))
        elif type(item) is ToolOutput:
            parts.append(item.output)
    return "\n".join(parts)


def prepare_counted(session: SessionApi, instruction: str, files: Sequence[str],
                    count: Count | None) -> TurnFailed | None:
    """``session.prepare``; near the cap, counted by the server and prepared again at its ratio."""
    failed = session.prepare(instruction, list(files))
    settings = session.settings
    facts = cached(settings) if count is not None else None
    if count is None or facts is None or facts.tokenizer is None:
        return failed
    if failed is not None and failed.kind != "budget":
        return failed
    if failed is not None:  # build it anyway (nothing is sent) to count it
        session.configure(replace(settings, sources={**settings.sources,
                                                     "context_window": UNKNOWN}))
        if session.prepare(instruction, list(files)) is not None:
            session.configure(settings)
            return failed
    request, context = session.prepared, session.context
    assert request is not None and context is not None
    if failed is None and context.used < NEAR_CAP * context.budget and facts.scale:
        return None
    provider = settings.provider
    counted = count(provider.base_url or "", facts.tokenizer, provider.model, provider.api_key,
                    request_text(request))
    pieces = round(context.used / session.settings.token_scale)
    if counted is None or pieces <= 0:
        session.configure(settings)
        return session.prepare(instruction, list(files))
    counted += TEMPLATE_TOKENS * (len(request.messages) + 1)
    scale = math.ceil(counted / pieces * 1000) / 1000
    store(settings, replace(facts, scale=scale))
    session.configure(replace(settings, token_scale=round(scale * MARGIN, 3)))
    return session.prepare(instruction, list(files))

"""Building one turn's request: instructions, AGENTS.md, the target files, the ask, the budget.

The files travel as file blocks (``spark_cli.protocol.files``) in the user
message, before the instruction. The session remembers what the model saw
(``seen``: path -> text, and a sha256 per file) so the applier can tell the
user's own changes from the model's, and a later turn re-sends only files
that changed since.

Everything is checked before anything is sent: a path outside the root, a
missing, binary or non-UTF-8 file, or a request that does not fit the window
(``context_window - max_output_tokens``) raises :class:`RequestError` with a
message naming the biggest contributors.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path

from spark_cli.edits.disk.paths import confine
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.lang.grammars import language_for_path
from spark_cli.edits.model.outcome import FileRefused
from spark_cli.protocol.channel import Message, TurnRequest
from spark_cli.protocol.files import FileBlock, render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.protocol.values import Value, value
from spark_cli.session.instructions import system_instructions
from spark_cli.session.settings import Settings

AGENTS_FILE = "AGENTS.md"


class RequestError(Exception):
    """The request cannot be built; nothing was sent. ``kind`` is a ``TurnFailed`` kind."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


@value
class TargetFile(Value):
    path: str
    """Root-relative, POSIX-style."""
    text: str
    sha256: str


@value
class BuiltRequest(Value):
    request: TurnRequest
    user_message: Message
    """The new message this turn adds to the conversation."""
    targets: tuple[TargetFile, ...]
    sent: tuple[str, ...]
    """The paths whose content went into this request (unchanged files are not re-sent)."""
    input_tokens: int


def text_sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def read_target(root: Path, raw: str) -> TargetFile:
    """One file to edit, confined to ``root`` and decoded; ``RequestError`` otherwise."""
    try:
        where = confine(root, raw)
    except FileRefused as exc:
        raise RequestError("path", exc.message) from None
    if not where.path.exists():
        raise RequestError("not_found_file", f"{raw}: no such file")
    if where.path.is_dir():
        raise RequestError("path", f"{raw} is a directory; name the files to edit")
    try:
        text = read_text_file(where.path, name=where.rel).text
    except FileRefused as exc:
        kind = exc.reason if exc.reason in ("binary", "encoding", "too_large") else "path"
        raise RequestError(kind, exc.message + "; nothing was sent") from None
    except OSError as exc:
        raise RequestError("path", f"{raw}: cannot read ({exc.strerror or exc})") from None
    return TargetFile(where.rel, text, text_sha256(text))


def read_agents_md(root: Path) -> str | None:
    """The repo root's AGENTS.md, if there is one and it is text."""
    path = Path(root) / AGENTS_FILE
    if not path.is_file():
        return None
    try:
        return read_text_file(path, name=AGENTS_FILE).text
    except (OSError, FileRefused):
        return None


def _over_budget(parts: list[tuple[str, int]], total: int, settings: Settings) -> RequestError:
    biggest = sorted(parts, key=lambda item: item[1], reverse=True)[:3]
    named = "; ".join(f"{name} is {tokens:,} tokens" for name, tokens in biggest if tokens)
    return RequestError(
        "budget",
        f"the request does not fit: {named}; the window is {settings.context_window:,} tokens "
        f"with {settings.max_output_tokens:,} kept for the answer, so at most "
        f"{settings.input_budget:,} may be sent and this request is {total:,}. "
        "Nothing was sent: name fewer or smaller files, or raise context_window.",
    )


def build_request(settings: Settings, root: Path, files: Sequence[str], instruction: str, *,
                  history: Sequence[Message] = (),
                  already_sent: Mapping[str, str] | None = None) -> BuiltRequest:
    """The whole request for one turn, checked against the budget.

    ``history`` is the conversation so far; ``already_sent`` maps paths to the
    sha256 of the content the model already has (those files are not re-sent
    unless they changed).
    """
    targets: list[TargetFile] = []
    for raw in files:
        target = read_target(root, raw)
        if all(t.path != target.path for t in targets):
            targets.append(target)
    known = already_sent or {}
    fresh = [t for t in targets if known.get(t.path) != t.sha256]
    agents = read_agents_md(root)
    instructions = system_instructions(settings.edit_format, agents)

    blocks = [FileBlock(t.path, t.text, language_for_path(t.path) or "") for t in fresh]
    content = instruction.strip() + "\n"
    if blocks:
        content = render_file_blocks(blocks) + "\n" + content
    user = Message("user", content)

    history_tokens = sum(count_tokens(m.content) for m in history)
    total = count_tokens(instructions) + count_tokens(content) + history_tokens
    if total > settings.input_budget:
        system = count_tokens(instructions) - count_tokens(agents or "")
        parts = [("the system prompt", system),
                 (AGENTS_FILE, count_tokens(agents or "")),
                 *((t.path, count_tokens(t.text)) for t in fresh),
                 ("the instruction", count_tokens(instruction)),
                 ("the earlier conversation", history_tokens)]
        raise _over_budget(parts, total, settings)

    request = TurnRequest(
        model=settings.provider.model,
        messages=(*history, user),
        instructions=instructions,
        max_output_tokens=settings.max_output_tokens,
    )
    return BuiltRequest(request, user, tuple(targets), tuple(t.path for t in fresh), total)

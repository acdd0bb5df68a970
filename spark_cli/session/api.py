"""The one typed interface every front end drives a session through.

A front end holds a :class:`SessionApi`, calls ``prepare`` / ``run_turn`` / ``interrupt`` /
``steer`` and matches on the closed union ``SessionEvent`` that ``run_turn`` yields.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Collection, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from spark_cli.protocol.channel import ChannelError, Message, ToolCall, ToolOutput
from spark_cli.record import record
from spark_cli.session.tool_access import call_label
from spark_cli.session.workspace.store import SavedConversation, ShownItem

if TYPE_CHECKING:
    from spark_cli.protocol.channel import Channel, ConversationItem, TurnRequest
    from spark_cli.session.actions.approval import Approver
    from spark_cli.session.config.settings import Settings
    from spark_cli.session.context.report import ContextReport
    from spark_cli.session.events import SessionEvent, TurnFailed
    from spark_cli.session.marks import TurnMarks
    from spark_cli.session.workspace.store import SessionStore
    from spark_cli.session.workspace.turns import TurnRecord


class SessionApi(Protocol):
    """What a front end may do with a session and read from it (``Session`` implements it).

    The session owns its state: a front end changes it only through a method."""

    def set_keep(self, keep: Keep) -> None:
        """Save the conversation through ``keep`` after each turn (by default: nowhere)."""

    def save(self) -> None:
        """Save the conversation now, where ``keep`` says."""

    @property
    def root(self) -> Path:
        """The repo root; edits never leave it."""

    @property
    def settings(self) -> Settings:
        """The provider, model and limits the next turn uses (``configure`` changes them)."""

    @property
    def marks(self) -> TurnMarks:
        """The latest turn's latency marks."""

    @property
    def seen(self) -> Mapping[str, str]:
        """path -> the text as the model last saw it (a dry run's result, the end diff)."""

    @property
    def history(self) -> Sequence[ConversationItem]:
        """The conversation so far (messages, the model's tool calls and their outputs)."""

    @property
    def turns(self) -> Sequence[TurnRecord]:
        """Every turn of the conversation as it was, oldest first (what ``/rewind`` lists)."""

    @property
    def context_tokens(self) -> int:
        """Tokens the latest request sent (of ``settings.context_window``)."""

    @property
    def context(self) -> ContextReport | None:
        """The latest request's context, part by part, and what was trimmed to fit."""

    def attach(self, channel: Channel | None) -> None:
        """Talk over ``channel`` from the next turn on (None: no channel until attached)."""

    def configure(self, settings: Settings) -> None:
        """Use ``settings`` from the next turn on; the conversation carries over."""

    async def expand_command(self, line: str, reserved: Collection[str] = ()) -> str | None:
        """What a prompt file's ``/name args`` line sends (None: no such file); the file's
        ``model`` is the model of the turn that sends it."""

    def hooks_status(self) -> list[str]:
        """``/hooks``: each configured hook, where from, and its last result."""

    def start_servers(self) -> None:
        """Start the MCP servers in the background (after the first request left)."""

    def servers_pending(self) -> bool:
        """An MCP server has no tool list yet, live or cached (a one-shot waits for it)."""

    async def wait_for_servers(self) -> None:
        """Start the servers with no tool list yet and wait for each."""

    async def close_servers(self) -> None:
        """Stop the MCP servers: no process is left behind."""

    def servers_status(self) -> list[str]:
        """``/mcp``: each MCP server, its state, its tools and notes."""

    def set_approver(self, approver: Approver) -> None:
        """Ask ``approver`` before a command or MCP tool the policy does not let run by itself."""

    def restore(self, history: Sequence[ConversationItem],
                turns: Sequence[TurnRecord] = ()) -> None:
        """Continue a saved conversation: ``history`` and its ``turns`` replace the current."""

    def rewind(self, index: int) -> str:
        """Drop ``turns[index]`` and every later turn (files untouched); that turn's message."""

    def files_changed(self) -> None:
        """Files changed outside a turn: the next turn sends them again."""

    def repo_files(self) -> list[str]:
        """The repo's files as the repo map sees them (walks the tree: call it off the loop)."""

    @property
    def streaming(self) -> bool:
        """A turn is running."""

    def prepare(self, instruction: str, files: Sequence[str]) -> TurnFailed | None:
        """Build the next turn's request ahead (no channel needed); its failure, if any."""

    @property
    def prepared(self) -> TurnRequest | None:
        """The request ``prepare`` built, until ``run_turn`` takes it."""

    def run_turn(self, instruction: str, files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        """Run one turn: session events, ending with ``TurnCompleted`` or ``TurnFailed``."""

    def compact(self, focus: str = "") -> AsyncIterator[SessionEvent]:
        """``/compact``: fold the older turns into one summary now (``interrupt`` cancels it)."""

    def reset(self) -> None:
        """Start a new conversation: no history; files are sent again."""

    async def warm(self) -> None:
        """Connect ahead of the first turn (raises ``ChannelError`` when it cannot)."""

    async def interrupt(self) -> None:
        """Stop the running turn now (it ends ``TurnCompleted(status="cancelled")``)."""

    async def steer(self, text: str) -> bool:
        """Redirect the running turn in-band; False when the channel cannot."""


@record
class Keep:
    """Where a session saves its conversation after each turn, with what the front end showed."""

    store: SessionStore
    shown: Callable[[], Sequence[ShownItem]]
    problem: Callable[[str], None]


def shown_from_history(saved: SavedConversation) -> tuple[ShownItem, ...]:
    """What a conversation saved without its shown items shows: messages and call labels."""
    items: list[ShownItem] = []
    for item in saved.history:
        match item:
            case Message(role="user", content=content) if content.strip():
                items.append(ShownItem("prompt", content.strip().splitlines()[-1][:200]))
            case Message(role="assistant", content=content) if content.strip():
                items.append(ShownItem("answer", content.strip()))
            case ToolCall(name=name, arguments=arguments):
                items.append(ShownItem("tool", "⚙ " + call_label(name, arguments)))
    return tuple(items)


class Connector(Protocol):
    """Opens the channel the settings describe; raises ``ChannelError`` (or ``OSError``)."""

    def __call__(self, settings: Settings) -> AbstractAsyncContextManager[Channel]: ...


__all__ = ["ChannelError", "Connector", "Keep", "Message", "SessionApi", "ToolCall", "ToolOutput"]

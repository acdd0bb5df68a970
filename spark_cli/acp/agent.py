"""`spark acp`: spark as an editor's agent over the Agent Client Protocol (the official SDK).

Each ACP session is a ``Session`` in its ``cwd``; ``session/prompt`` runs a turn and streams
its events (``acp.updates``), commands under ``ask`` go to ``session/request_permission``.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import sys
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from acp import PROTOCOL_VERSION, RequestError, run_agent
from acp.interfaces import Client
from acp.schema import (
    AcpMcpServer,
    AgentCapabilities,
    AudioContentBlock,
    ClientCapabilities,
    CloseSessionResponse,
    EmbeddedResourceContentBlock,
    ForkSessionResponse,
    HttpMcpServer,
    ImageContentBlock,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpServerStdio,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResourceContentBlock,
    ResumeSessionResponse,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SessionInfo,
    SessionMode,
    SessionModeState,
    SetSessionConfigOptionResponse,
    SseMcpServer,
    StopReason,
    TextContentBlock,
)

from spark_cli import __version__
from spark_cli.acp.editor import editor_approver, editor_buffers, follow_edits
from spark_cli.acp.updates import Outbox, TurnUpdates, Update, replay, stop_reason
from spark_cli.record import record
from spark_cli.session.api import Connector, Keep, SessionApi
from spark_cli.session.config.presets import CommandPolicy
from spark_cli.session.config.settings import Settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import ProseDelta, TurnCompleted, TurnFailed
from spark_cli.session.tool_access import default_runner
from spark_cli.session.workspace.store import SessionStore, ShownItem

McpServers = list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio] | None
"""The editor's own MCP servers (not used yet: the user's config names spark's)."""
Block = (TextContentBlock | ImageContentBlock | AudioContentBlock | ResourceContentBlock
         | EmbeddedResourceContentBlock)
MODES: tuple[tuple[CommandPolicy, str, str], ...] = (
    ("ask", "Ask", "Every command waits for your yes"),
    ("sandbox", "Sandbox", "Commands run without asking, only inside the sandbox"),
    ("off", "Off", "The model runs no commands"))
FULL = "commands = \"full-access\" is for containers and CI, not an editor: ask instead"


@record
class AcpSetup:
    """What the CLI hands the agent: the user's settings for a folder, and how to connect."""

    settings: Callable[[Path], Settings]
    """The resolved settings for the repo at a path (raises ValueError for a bad config)."""
    connect: Connector


class _Live:
    """One ACP session: its spark session, its channel (opened in the background), its store."""

    def __init__(self, session: SessionApi, connect: Connector) -> None:
        self.session = session
        self.store = SessionStore(session.root)
        session.set_keep(Keep(self.store, self.all_shown, say))
        self.stack = contextlib.AsyncExitStack()
        self.ready = asyncio.ensure_future(self.open(connect))
        self.cancelled = False
        self.shown: list[ShownItem] = []
        self.updates: TurnUpdates | None = None
        """The running prompt's updates (what it showed joins ``shown`` at its end)."""
        self.notes = project_notes(session.settings)
        """What the first answer starts with: the project layer ignored (untrusted), or keys."""

    def all_shown(self) -> list[ShownItem]:
        """What the editor was shown of this conversation, the running prompt's too."""
        updates = self.updates
        if updates is None:
            return self.shown
        answer = [ShownItem("answer", "".join(updates.answer))] if updates.answer else []
        return [*self.shown, *answer, *(ShownItem(*item) for item in updates.shown)]

    async def open(self, connect: Connector) -> None:
        self.session.attach(await self.stack.enter_async_context(connect(self.session.settings)))


class SparkAgent:
    """The ACP agent: every method the SDK routes (``acp.interfaces.Agent``)."""

    def __init__(self, setup: AcpSetup) -> None:
        self.setup = setup
        self.client: Client | None = None
        self.fs_read = self.fs_write = False
        self.live: dict[str, _Live] = {}

    def on_connect(self, conn: Client) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int,
                         client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None,
                         **kwargs: Any) -> InitializeResponse:
        fs = client_capabilities.fs if client_capabilities is not None else None
        self.fs_read = fs is not None and bool(fs.read_text_file)
        self.fs_write = self.fs_read and fs is not None and bool(fs.write_text_file)
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True, prompt_capabilities=PromptCapabilities(
                    image=False, audio=False, embedded_context=False)),
            agent_info=Implementation(name="spark", title="spark", version=__version__))

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: McpServers = None, **kwargs: Any) -> NewSessionResponse:
        sid = uuid.uuid4().hex
        live = await self._start(sid, cwd)
        return NewSessionResponse(session_id=sid, modes=_modes(live.session.settings),
                                  config_options=_options(live.session.settings))

    async def load_session(self, cwd: str, session_id: str, mcp_servers: McpServers = None,
                           additional_directories: list[str] | None = None,
                           **kwargs: Any) -> LoadSessionResponse:
        live = await self._start(session_id, cwd)
        saved = live.store.load_conversation(session_id) or live.store.load_conversation()
        if saved is None:
            del self.live[session_id]
            await live.stack.aclose()
            raise RequestError.resource_not_found(f"no saved spark conversation in {cwd}")
        live.session.restore(saved.history, saved.turns)
        live.shown = list(saved.shown)
        for update in replay(saved, live.session.root):
            await self._send(session_id, update)
        return LoadSessionResponse(modes=_modes(live.session.settings),
                                   config_options=_options(live.session.settings))

    async def _start(self, sid: str, cwd: str) -> _Live:
        root = Path(cwd)
        if not root.is_absolute() or not root.is_dir():
            raise RequestError.invalid_params({"cwd": f"{cwd}: not an absolute path to a folder"})
        try:
            settings = await asyncio.to_thread(self.setup.settings, root)
        except (ValueError, OSError) as exc:
            raise RequestError.invalid_params({"config": str(exc)}) from None
        if settings.commands == "full-access":  # a container's policy, not an editor's
            settings = replace(settings, commands="ask", ignored=(*settings.ignored, FULL))
        client = self.client
        buffers = editor_buffers(client, sid, asyncio.get_running_loop()) \
            if client is not None and self.fs_read else None
        session = Session(None, root, settings,
                          run_tool=default_runner(buffers) if buffers is not None else None)
        if client is not None:
            session.set_approver(editor_approver(client, sid))
        session.start_servers()
        live = self.live[sid] = _Live(session, self.setup.connect)
        return live

    async def prompt(self, session_id: str, prompt: list[Block], **kwargs: Any) -> PromptResponse:
        live = self._live(session_id)
        instruction, files = prompt_text(prompt, live.session.root)
        live.cancelled = False
        try:
            await live.ready
        except Exception as exc:  # no channel (no engine, a refused key): try again next prompt
            live.ready = asyncio.ensure_future(live.open(self.setup.connect))
            raise RequestError.internal_error({"details": str(exc)}) from None
        if live.cancelled:  # the editor stopped it while the channel was opening
            return PromptResponse(stop_reason="cancelled")
        updates = live.updates = TurnUpdates(live.session.root)
        live.shown.append(ShownItem("prompt", instruction))
        reason: StopReason = "end_turn"
        outbox = Outbox(lambda update: self._send(session_id, update))
        notes, live.notes = live.notes, []
        for note in notes:
            outbox.prose(f"spark: {note}\n\n")
        try:
            focus = instruction.strip().removeprefix("/compact")
            events = live.session.compact(focus.strip()) if focus != instruction.strip() \
                else live.session.run_turn(instruction, files)
            async for event in events:
                if type(event) is ProseDelta:  # the hot path: one check per delta
                    updates.answer.append(event.text)
                    outbox.prose(event.text)
                elif (update := updates.of(event)) is not None:
                    outbox.update(update)
                elif isinstance(event, TurnCompleted):
                    reason = stop_reason(event, live.cancelled)
                elif isinstance(event, TurnFailed) and not live.cancelled:
                    outbox.prose(f"\n\nspark: {event.message}\n")
        finally:
            await outbox.close()
            live.shown, live.updates = live.all_shown(), None
        if self.fs_write and self.client is not None and updates.landed:
            await follow_edits(self.client, session_id, live.session.root, updates.landed)
        return PromptResponse(stop_reason="cancelled" if live.cancelled else reason,
                              field_meta={"spark_marks": live.session.marks.as_dict()})

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        live = self.live.get(session_id)
        if live is not None:
            live.cancelled = True
            await live.session.interrupt()  # nothing to stop when no turn runs

    async def set_session_mode(self, session_id: str, mode_id: str, **kwargs: Any) -> None:
        if mode_id not in {m[0] for m in MODES}:
            raise RequestError.invalid_params({"modeId": f"unknown mode {mode_id!r}"})
        session = self._live(session_id).session
        mode = next(m[0] for m in MODES if m[0] == mode_id)
        session.configure(replace(session.settings, commands=mode))

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **kwargs: Any) -> SetSessionConfigOptionResponse:
        session = self._live(session_id).session
        if config_id == "mode" and isinstance(value, str):
            await self.set_session_mode(session_id, value)
        elif config_id != "model" or value != session.settings.provider.model:
            raise RequestError.invalid_params({config_id: f"cannot be set to {value!r}"})
        return SetSessionConfigOptionResponse(config_options=_options(session.settings))

    async def authenticate(self, method_id: str, **kwargs: Any) -> None:
        return None

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **kwargs: Any) -> ListSessionsResponse:
        """The sessions open in this agent (in ``cwd`` when given)."""
        return ListSessionsResponse(sessions=[
            SessionInfo(session_id=sid, cwd=str(live.session.root))
            for sid, live in self.live.items()
            if cwd is None or Path(cwd) == live.session.root])

    async def close_session(self, session_id: str, **kwargs: Any) -> CloseSessionResponse:
        raise RequestError.method_not_found("session/close (unstable; not offered)")

    async def fork_session(self, session_id: str, cwd: str,
                           additional_directories: list[str] | None = None,
                           mcp_servers: McpServers = None,
                           **kwargs: Any) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork (unstable; not offered)")

    async def resume_session(self, session_id: str, cwd: str,
                             additional_directories: list[str] | None = None,
                             mcp_servers: McpServers = None,
                             **kwargs: Any) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume (unstable; session/load is offered)")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None  # extensions spark does not know are ignored, as the protocol asks

    def _live(self, sid: str) -> _Live:
        live = self.live.get(sid)
        if live is None:
            raise RequestError.invalid_params({"sessionId": f"unknown session {sid!r}"})
        return live

    async def _send(self, sid: str, update: Update) -> None:
        if self.client is not None:
            await self.client.session_update(session_id=sid, update=update)

    async def close(self) -> None:
        """Close every session's channel (and the bundled engine with it)."""
        for live in self.live.values():
            live.ready.cancel()
            with contextlib.suppress(Exception, asyncio.CancelledError):
                await live.session.close_servers()
                await live.stack.aclose()


def prompt_text(blocks: list[Block], root: Path) -> tuple[str, list[str]]:
    """The instruction and the repo files (``resource_link``s in the repo) a prompt holds."""
    texts: list[str] = []
    files: list[str] = []
    for block in blocks:
        if isinstance(block, TextContentBlock):
            texts.append(block.text)
        elif isinstance(block, ResourceContentBlock):
            url = urlparse(block.uri)
            path = Path(unquote(url.path)) if url.scheme == "file" else None
            if path is not None and path.is_relative_to(root) and path.is_file():
                files.append(path.relative_to(root).as_posix())
            else:
                texts.append(block.uri)
    return "\n".join(texts), files


def project_notes(settings: Settings) -> list[str]:
    """The project layer's notes (untrusted, user-only keys), each said once on stderr."""
    trust = settings.trust
    notes = [trust.line()] if trust is not None and trust.asks else []
    notes += settings.ignored
    for note in notes:
        say(note)
    return notes


def say(line: str) -> None:
    print(f"spark acp: {line}", file=sys.stderr, flush=True)


def _modes(settings: Settings) -> SessionModeState:
    return SessionModeState(current_mode_id=settings.commands, available_modes=[
        SessionMode(id=i, name=n, description=d) for i, n, d in MODES])


def _options(settings: Settings) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean]:
    model = settings.provider.model
    return [
        SessionConfigOptionSelect(type="select", id="mode", name="Commands", category="mode",
                                  current_value=settings.commands, options=[
                                      SessionConfigSelectOption(value=i, name=n, description=d)
                                      for i, n, d in MODES]),
        SessionConfigOptionSelect(type="select", id="model", name="Model", category="model",
                                  current_value=model, options=[
                                      SessionConfigSelectOption(value=model, name=model)])]


async def serve(setup: AcpSetup) -> None:
    """Speak ACP on stdio until the editor closes it (what is loaded is frozen out of the GC)."""
    gc.freeze()
    agent = SparkAgent(setup)
    try:
        await run_agent(agent)
    finally:
        await agent.close()

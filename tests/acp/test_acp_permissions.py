"""The editor's answers to ``session/request_permission`` (once, reject, a cancelled question),
the modes, ``read_file`` through the editor's open buffers, and the buffers following edits.
The SDK's client drives the agent over a socket pair; the model is a scripted channel, so a
call the bundled engine never makes (a compound line, a read of a given path) is exact."""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, text_block
from acp.agent.connection import AgentSideConnection
from acp.client.connection import ClientSideConnection
from acp.schema import ClientCapabilities, FileSystemCapabilities
from acp_client import Editor
from session_fakes import ResponsesChannel

from spark_cli.acp import agent as agent_module
from spark_cli.acp.agent import AcpSetup, SparkAgent, prompt_text
from spark_cli.protocol.channel import (
    ChannelError,
    Overflow,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    TurnRequest,
)
from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.workspace.store import SessionStore


def _run(command: str, tool: str = "run_command") -> list[Any]:
    arguments = json.dumps({"command": command} if tool == "run_command" else {"path": command})
    return [ToolCallOpened("c1", tool), ToolCallCompleted(ToolCall("c1", tool, arguments))]


@asynccontextmanager
async def _agent(repo: Path, editor: Editor, channel: ResponsesChannel,
                 opened: asyncio.Event | None = None,
                 **flags: Any) -> AsyncIterator[ClientSideConnection]:
    def settings(root: Path) -> Settings:
        return load_settings(root, flags, {"SPARK_CONFIG_DIR": str(repo / ".none")})

    @asynccontextmanager
    async def connect(settings: Settings) -> AsyncIterator[ResponsesChannel]:
        if opened is not None:
            await opened.wait()
        yield channel

    agent = SparkAgent(AcpSetup(settings=settings, connect=connect))
    ends = socket.socketpair()
    agent_side = await asyncio.open_connection(sock=ends[0])
    client_side = await asyncio.open_connection(sock=ends[1])
    served = AgentSideConnection(agent, agent_side[1], agent_side[0])
    conn = ClientSideConnection(editor, client_side[1], client_side[0])
    try:
        await conn.initialize(protocol_version=PROTOCOL_VERSION, client_capabilities=(
            ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True,
                                                         write_text_file=True))))
        yield conn
    finally:
        await conn.close()
        await served.close()
        await agent.close()
        for _, writer in (agent_side, client_side):
            writer.close()
            await writer.wait_closed()


async def _prompt(conn: ClientSideConnection, repo: Path, mode: str | None = None) -> str:
    session = await conn.new_session(cwd=str(repo), mcp_servers=[])
    if mode is not None:
        await conn.set_session_mode(session_id=session.session_id, mode_id=mode)
    done = await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    return done.stop_reason


async def test_reject_asks_the_editor_and_runs_nothing(tmp_path: Path):
    editor = Editor(answer="reject")
    channel = ResponsesChannel([_run("touch made"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path) == "end_turn"
    (call, options), = editor.asked
    assert call.title == "$ touch made" and call.kind == "execute"
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once"]
    assert not (tmp_path / "made").exists()
    failed = [u for u in editor.of("tool_call") if u.kind == "execute"]
    assert failed[0].status == "failed"
    assert "declined" in channel.requests[1].messages[-1].output


async def test_allow_once_runs_it_and_streams_its_output_as_an_execute_call(tmp_path: Path):
    editor = Editor(answer="once")
    channel = ResponsesChannel([_run("echo hello-acp"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path) == "end_turn"
    started = [u for u in editor.of("tool_call") if u.kind == "execute"]
    assert started and started[0].status == "in_progress"
    finished = [u for u in editor.of("tool_call_update") if u.status == "completed"]
    assert "hello-acp" in finished[-1].content[0].content.text


async def test_mode_off_runs_nothing_and_asks_nobody(tmp_path: Path):
    editor = Editor(answer="once")
    channel = ResponsesChannel([_run("touch made"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path, mode="off") == "end_turn"
    assert not editor.asked and not (tmp_path / "made").exists()


async def test_full_access_is_no_editor_mode_it_asks_instead(tmp_path: Path):
    editor = Editor(answer="reject")
    channel = ResponsesChannel([_run("touch made"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel, commands="full-access") as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        assert "full-access" not in {m.id for m in session.modes.available_modes}
        await conn.prompt(session_id=session.session_id, prompt=[text_block("run it")])
    assert editor.asked and not (tmp_path / "made").exists()
    assert "not an editor" in "".join(u.content.text for u in editor.of("agent_message_chunk"))


async def test_a_compound_command_offers_no_always_and_a_cancelled_question_stops(
        tmp_path: Path):
    class Cancelling(Editor):
        async def request_permission(self, session_id: str, tool_call: Any,
                                     options: list[Any], **kwargs: Any) -> Any:
            self.asked.append((tool_call, options))
            from acp.schema import DeniedOutcome, RequestPermissionResponse

            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    editor = Cancelling()
    channel = ResponsesChannel([_run("touch a && touch b"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path) == "cancelled"
    assert [o.kind for o in editor.asked[0][1]] == ["allow_once", "reject_once"]
    assert not (tmp_path / "a").exists()


async def test_a_line_with_escape_sequences_reaches_the_editor_escaped_without_always(
        tmp_path: Path):
    editor = Editor(answer="reject")
    channel = ResponsesChannel([_run("touch pwned \x1b[2K\x1b[1Gpytest -q"), ["Done.\n"]])
    async with _agent(tmp_path, editor, channel, allowed_commands=["touch"],
                      allow_unsandboxed=True) as conn:  # the prefix alone would run it
        assert await _prompt(conn, tmp_path) == "end_turn"
    (call, options), = editor.asked
    assert call.title == "$ touch pwned \\x1b[2K\\x1b[1Gpytest -q"
    assert call.raw_input["command"] == call.title[2:]
    assert [o.kind for o in options] == ["allow_once", "reject_once"]
    assert not (tmp_path / "pwned").exists()


async def test_read_file_reads_the_editors_unsaved_buffer_and_the_disk_otherwise(
        tmp_path: Path):
    (tmp_path / "a.py").write_text("on_disk = 1\n")
    (tmp_path / "b.py").write_text("closed = 1\n")
    editor = Editor(buffers={str(tmp_path / "a.py"): "unsaved = 2\n"})
    channel = ResponsesChannel([_run("a.py", "read_file"), _run("b.py", "read_file"),
                                ["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path) == "end_turn"
    outputs = [m.output for r in channel.requests for m in r.messages if hasattr(m, "output")]
    assert "unsaved = 2" in outputs[0] and "on_disk" not in outputs[0]
    assert "closed = 1" in outputs[-1]
    reads = [u for u in editor.of("tool_call") if u.kind == "read"]
    assert reads[0].locations[0].path == str(tmp_path / "a.py")


async def test_a_cancel_while_the_channel_opens_ends_the_prompt_cancelled(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    prompted = asyncio.Event()

    def noting(blocks: list[Any], root: Path) -> tuple[str, list[str]]:
        prompted.set()
        return prompt_text(blocks, root)

    heard = asyncio.Event()
    cancel = SparkAgent.cancel

    async def hearing(self: SparkAgent, session_id: str, **kwargs: Any) -> None:
        await cancel(self, session_id, **kwargs)
        heard.set()

    monkeypatch.setattr(agent_module, "prompt_text", noting)
    monkeypatch.setattr(SparkAgent, "cancel", hearing)
    editor = Editor()
    channel = ResponsesChannel([["never sent\n"]])
    opened = asyncio.Event()
    async with _agent(tmp_path, editor, channel, opened) as conn:
        session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
        prompt = asyncio.ensure_future(conn.prompt(session_id=session.session_id,
                                                   prompt=[text_block("hello")]))
        await prompted.wait()
        await conn.cancel(session_id=session.session_id)
        await heard.wait()
        opened.set()
        assert (await prompt).stop_reason == "cancelled"
    assert channel.requests == [] and editor.updates == []


BLOCK = "a.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n>>>>>>> REPLACE\n"


@pytest.mark.parametrize(("buffer", "followed"), [("x = 1\ny = 1\n", True),
                                                  ("x = 1\ny = 1\n# unsaved\n", False)])
async def test_a_buffer_holding_the_old_text_follows_the_edit_and_an_unsaved_one_is_kept(
        tmp_path: Path, buffer: str, followed: bool):
    (tmp_path / "a.py").write_text("x = 1\ny = 1\n")
    path = str(tmp_path / "a.py")
    editor = Editor(buffers={path: buffer})
    channel = ResponsesChannel([["Changing x.\n", BLOCK, "Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        assert await _prompt(conn, tmp_path) == "end_turn"
    assert (tmp_path / "a.py").read_text() == "x = 2\ny = 1\n"
    assert editor.written == ({path: "x = 2\ny = 1\n"} if followed else {})
    assert editor.buffers[path] == ("x = 2\ny = 1\n" if followed else buffer)


async def test_an_overflow_is_sent_once_more_within_the_window_it_taught(tmp_path: Path):
    """As `spark edit` and the TUI: the first request overflows a 2,048 window; the prompt is
    sent once more within it, its answer reaches the editor and the conversation is saved."""
    def overflow(request: TurnRequest) -> list[Any]:
        raise ChannelError("context_length", "the request (3.0k tokens) is larger than the "
                           "model's window (2.0k); the server said (400): too long",
                           overflow=Overflow(3000, 2048))

    (tmp_path / "app.py").write_text("def f():\n    return 1\n")
    editor = Editor()
    channel = ResponsesChannel([overflow, ["It returns one.\n"]])
    async with _agent(tmp_path, editor, channel, provider="openai-compatible", model="m",
                      base_url="http://127.0.0.1:9/v1") as conn:
        assert await _prompt(conn, tmp_path) == "end_turn"
    said = "".join(u.content.text for u in editor.of("agent_message_chunk"))
    assert "It returns one." in said and "larger than" not in said
    assert len(channel.requests) == 2 and not channel.requests[1].tools  # sized to 2k
    saved = SessionStore(tmp_path).load_conversation()
    assert saved is not None and saved.history[-1].content == "It returns one.\n"
    assert [item.kind for item in saved.shown] == ["prompt", "answer"]


@pytest.mark.parametrize("blocked", [False, True])
async def test_a_hook_warning_reaches_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 blocked: bool):
    """A prompt hook that fails without blocking is said to the editor, also when another
    prompt hook then blocks the message."""
    (tmp_path / ".none").mkdir()
    (tmp_path / ".none" / "config.toml").write_text(
        '[[hooks.UserPromptSubmit]]\ncommand = "exit 1"\n' + (
            '[[hooks.UserPromptSubmit]]\ncommand = "echo no >&2; exit 2"\n' if blocked else ""))
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / ".none"))
    editor = Editor()
    channel = ResponsesChannel([["Done.\n"]])
    async with _agent(tmp_path, editor, channel) as conn:
        await _prompt(conn, tmp_path)
    said = "".join(u.content.text for u in editor.of("agent_message_chunk"))
    assert "warning: hook UserPromptSubmit 'exit 1': " in said, said
    assert ("Done." in said) is not blocked and len(channel.requests) == (not blocked)

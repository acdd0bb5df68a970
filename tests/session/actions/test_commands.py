"""run_command in a turn: the policy, the user's answer, the run and its events, over a
scripted channel and real processes."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from session_fakes import ResponsesChannel

from spark_cli.checks.sandbox import NoSandbox, Sandbox, find_sandbox
from spark_cli.protocol.channel import ToolCall, ToolCallCompleted, ToolCallOpened, ToolOutput
from spark_cli.session.actions import orchestrator
from spark_cli.session.actions.approval import ApprovalRequest, Approvals, Decision
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    CommandFinished,
    CommandOutput,
    CommandStarted,
    TurnCompleted,
)
from tests.checks.processes import bubblewrap


def _no_sandbox(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(orchestrator, "find_sandbox",
                        lambda: NoSandbox("no bwrap", "install bubblewrap"))


def _needs_sandbox() -> None:
    if not isinstance(find_sandbox(), Sandbox):
        if os.environ.get("CI"):
            pytest.fail("no working bubblewrap in CI: .ci/run installs it")
        pytest.skip(f"no sandbox here: {find_sandbox()}")


def run(call_id: str, command: str | None = None, raw: str | None = None) -> list[Any]:
    arguments = raw if raw is not None else json.dumps({"command": command})
    return [ToolCallOpened(call_id, "run_command"),
            ToolCallCompleted(ToolCall(call_id, "run_command", arguments))]


class Approver:
    """Answers every question with ``decision`` and keeps the questions."""

    def __init__(self, decision: Decision = "once") -> None:
        self.decision = decision
        self.asked: list[ApprovalRequest] = []
        self.waiting = asyncio.Event()
        self.hold = False  # never answer (the turn is interrupted meanwhile)

    async def __call__(self, request: ApprovalRequest, /) -> Decision:
        self.asked.append(request)
        self.waiting.set()
        if self.hold:
            await asyncio.Event().wait()
        return self.decision


def _session(repo: Path, script: list[Any], approver: Approver | None = None,
             **flags: Any) -> tuple[Session, ResponsesChannel]:
    channel = ResponsesChannel([script, ["Done.\n"]])
    settings = load_settings(repo, flags, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    session = Session(channel, repo, settings)
    if approver is not None:
        session.set_approver(approver)
    return session, channel


async def _turn(session: Session) -> list[Any]:
    async with asyncio.timeout(30):
        return [e async for e in session.run_turn("run it", [])]


def _outputs(channel: ResponsesChannel) -> list[str]:
    return [i.output for i in channel.requests[-1].messages if isinstance(i, ToolOutput)]


async def test_off_declares_no_tool_and_a_stray_call_runs_nothing(tmp_path: Path) -> None:
    session, channel = _session(tmp_path, run("c1", "touch made"), commands="off")
    events = await _turn(session)
    assert "run_command" not in [t.name for t in channel.requests[0].tools]
    assert _outputs(channel) == ["running commands is off (--commands)"]
    assert not (tmp_path / "made").exists()
    finished = [e for e in events if isinstance(e, CommandFinished)]
    assert finished[0].ended == "refused" and not any(isinstance(e, CommandStarted)
                                                      for e in events)


async def test_ask_runs_after_yes_and_streams_the_output(tmp_path: Path) -> None:
    approver = Approver("once")
    session, channel = _session(tmp_path, run("c1", "echo out; echo err >&2; exit 3"), approver)
    events = await _turn(session)
    assert "run_command" in [t.name for t in channel.requests[0].tools]
    [asked] = approver.asked
    assert (asked.action, asked.cwd, asked.can_always) == (
        "echo out; echo err >&2; exit 3", str(tmp_path.resolve()), False)
    started = [e for e in events if isinstance(e, CommandStarted)]
    assert len(started) == 1
    streamed = "".join(e.text for e in events if isinstance(e, CommandOutput))
    assert "out" in streamed and "err" in streamed
    [finished] = [e for e in events if isinstance(e, CommandFinished)]
    assert (finished.ended, finished.exit_code) == ("exit", 3)
    [output] = _outputs(channel)
    assert output.startswith("exit 3 · ") and "out\n" in output and "err" in output
    assert isinstance(events[-1], TurnCompleted) and events[-1].tool_calls == 1


async def test_no_runs_nothing_and_tells_the_model(tmp_path: Path) -> None:
    session, channel = _session(tmp_path, run("c1", "touch made"), Approver("refuse"))
    events = await _turn(session)
    assert not (tmp_path / "made").exists()
    assert _outputs(channel) == ["declined: the user did not allow this command"]
    assert [e.ended for e in events if isinstance(e, CommandFinished)] == ["declined"]


async def test_always_is_remembered_for_this_exact_command_outside_the_repo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    approver = Approver("always")
    opt_out = {"allow_unsandboxed": True}
    session, _ = _session(tmp_path, run("c1", "touch made"), approver, **opt_out)
    await _turn(session)
    assert (tmp_path / "made").exists() and not (tmp_path / ".spark").exists()
    assert "touch made" in Approvals(tmp_path).allowed("command")
    again, _ = _session(tmp_path, run("c2", "touch made"), approver, **opt_out)
    other, _ = _session(tmp_path, run("c3", "touch other"), approver, **opt_out)
    await _turn(again)
    await _turn(other)
    assert [a.action for a in approver.asked] == ["touch made", "touch other"]


async def test_allowed_commands_skip_asking_but_a_compound_line_still_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    approver = Approver("refuse")
    session, _ = _session(tmp_path, [*run("c1", "touch one"),
                                     *run("c2", "touch two && touch three")],
                          approver, allowed_commands=["touch"], allow_unsandboxed=True)
    await _turn(session)
    assert (tmp_path / "one").exists() and not (tmp_path / "two").exists()
    assert [a.action for a in approver.asked] == ["touch two && touch three"]


async def test_bad_arguments_are_an_error_result_under_the_call_id(tmp_path: Path) -> None:
    approver = Approver("once")
    session, channel = _session(tmp_path, [*run("c1", raw='{"command": '),
                                           *run("c2", raw='{"timeout_s": 3}')], approver)
    await _turn(session)
    outputs = [i for i in channel.requests[-1].messages if isinstance(i, ToolOutput)]
    assert [o.call_id for o in outputs] == ["c1", "c2"]
    assert "not valid JSON" in outputs[0].output
    assert "missing required argument 'command'" in outputs[1].output
    assert approver.asked == []


async def test_sandbox_policy_without_a_sandbox_refuses_with_the_fix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    session, channel = _session(tmp_path, run("c1", "touch made"), commands="sandbox")
    await _turn(session)
    assert not (tmp_path / "made").exists()
    [output] = _outputs(channel)
    assert output.startswith("not run: no sandbox") and "install bubblewrap" in output


async def test_ask_without_a_sandbox_says_not_sandboxed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    approver = Approver("refuse")
    session, _ = _session(tmp_path, run("c1", "true"), approver)
    await _turn(session)
    [asked] = approver.asked
    assert not asked.sandboxed and asked.where == "not sandboxed: install bubblewrap"


async def test_esc_while_the_question_waits_withdraws_it_and_stops_the_turn(
        tmp_path: Path) -> None:
    approver = Approver()
    approver.hold = True
    session, channel = _session(tmp_path, run("c1", "touch made"), approver)

    async def esc() -> None:
        await approver.waiting.wait()
        await session.interrupt()

    async with asyncio.timeout(10):
        stopper = asyncio.create_task(esc())
        events = await _turn(session)
        await stopper
    assert not (tmp_path / "made").exists()
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "cancelled"
    assert len(channel.requests) == 1
    calls = [i.call_id for i in session.history if isinstance(i, ToolCall)]
    answered = [i.call_id for i in session.history if isinstance(i, ToolOutput)]
    assert calls == answered == ["c1"]


async def test_esc_while_it_runs_kills_the_command(tmp_path: Path) -> None:
    session, _ = _session(tmp_path, run("c1", "echo started; sleep 30"),
                                Approver("once"))
    events: list[Any] = []

    async def collect() -> None:
        async for event in session.run_turn("run it", []):
            events.append(event)
            if isinstance(event, CommandOutput):
                await session.interrupt()

    async with asyncio.timeout(10):
        await collect()
    [finished] = [e for e in events if isinstance(e, CommandFinished)]
    assert finished.ended == "stopped" and finished.duration_s < 5
    assert isinstance(events[-1], TurnCompleted) and events[-1].status == "cancelled"
    assert events[-1].tool_time_s >= finished.duration_s  # the stopped run is time in spark


async def test_files_the_command_changed_are_named(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    session, channel = _session(tmp_path, run("c1", "echo b >> a.txt; echo c > c.txt"),
                                Approver("once"))
    events = await _turn(session)
    [finished] = [e for e in events if isinstance(e, CommandFinished)]
    assert finished.changed == ("a.txt", "c.txt")
    assert "/undo does not restore them" in finished.line
    assert "the command changed 2 files" in _outputs(channel)[0]


async def test_a_write_under_a_dot_folder_or_an_ignored_file_is_named(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text(".vscode/\n.env\n")
    command = ("mkdir -p .github/workflows .vscode; echo x > .github/workflows/ci.yml; "
               "echo '{}' > .vscode/tasks.json; echo K=1 > .env")
    session, channel = _session(tmp_path, run("c1", command), Approver("once"))
    events = await _turn(session)
    [finished] = [e for e in events if isinstance(e, CommandFinished)]
    assert finished.changed == (".env", ".github/workflows/ci.yml", ".vscode/tasks.json")
    assert "changed 3 files (.env, .github/workflows/ci.yml, .vscode/tasks.json)" in finished.line
    assert ".github/workflows/ci.yml" in _outputs(channel)[0]


async def test_the_users_command_env_and_deny_read_reach_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    user = tmp_path / "user"
    user.mkdir()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "deploy.key").write_text("key-material-0451\n")
    (user / "config.toml").write_text(f'command_env = ["MY_TOOL_HOME"]\n'
                                      f'sandbox_deny_read = ["{repo}/deploy.key"]\n')
    monkeypatch.setenv("MY_TOOL_HOME", "/opt/my-tool")
    monkeypatch.setenv("GITHUB_PAT", "ghp-not-for-commands")
    bubblewrap()  # the user's sandbox_deny_read hides a file from a sandboxed command
    channel = ResponsesChannel([run("c1", "env; cat deploy.key"), ["Done.\n"]])
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(user)})
    session = Session(channel, repo, settings)
    session.set_approver(Approver("once"))
    await _turn(session)
    [output] = _outputs(channel)
    assert "MY_TOOL_HOME=/opt/my-tool" in output and "GITHUB_PAT" not in output
    assert "ghp-not-for-commands" not in output and "key-material" not in output


async def test_the_providers_key_never_reaches_the_command_or_the_model(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-test-0123456789abcdef"
    monkeypatch.setenv("OPENAI_API_KEY", key)
    (tmp_path / "key.txt").write_text(key + "\n")
    session, channel = _session(tmp_path, run("c1", "echo env=$OPENAI_API_KEY; cat key.txt"),
                                Approver("once"))
    events = await _turn(session)
    [output] = _outputs(channel)
    streamed = "".join(e.text for e in events if isinstance(e, CommandOutput))
    assert key not in output and key not in streamed
    assert "env=\n" in output

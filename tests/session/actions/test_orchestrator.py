"""The one policy (``session/actions/orchestrator.py``): which lines run unasked, ask or are
refused, what the question shows, where "always" is kept; over a scripted channel and real
processes (the sandbox: real bubblewrap, or none, as ``find_sandbox`` is patched)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from spark_cli.session.actions.approval import APPROVED_FILE, Approvals
from spark_cli.session.actions.orchestrator import allowed_by, escaped, is_compound
from spark_cli.session.actions.test_runs import NoTestCommand, run_requested_tests
from spark_cli.session.config.settings import load_settings
from spark_cli.session.events import CommandFinished, CommandStarted
from tests.session.actions.test_commands import (
    Approver,
    _needs_sandbox,
    _no_sandbox,
    _outputs,
    _session,
    _turn,
    run,
)

HOSTILE = "touch pwned \x1b[2K\x1b[1Gpytest -q"
"""Shows as ``pytest -q`` on a terminal while ``touch pwned ...`` runs."""
ALLOWED = ["pytest", "make test", "ruff check", "bad 'quote"]


@pytest.mark.parametrize(("command", "allowed"), [
    ("pytest", True),
    ("pytest -q tests", True),
    ("  pytest   -q", True),
    ("make test", True),
    ("make install", False),
    ("make", False),
    ("ruff check spark_cli", True),
    ("ruff format", False),
    ("pytesty", False),
    ("'pytest' -q", True),
    ("pytest; rm -rf /", False),
    ("pytest && rm x", False),
    ("pytest || true", False),
    ("pytest | tee log", False),
    ("pytest > log", False),
    ("pytest < input", False),
    ("pytest `rm x`", False),
    ("pytest $(rm x)", False),
    ("pytest\nrm x", False),
    ("pytest &", False),
    ("pytest 'open quote", False),
    ("", False),
    ("FOO=1 pytest", False),
    ("bad", False),
    ("pytest -q\x1b[2K", False),
    ("pytest -q \u202e", False),
    ("pytest\u00a0-q", False),
])
def test_allowed_by_leading_words(command: str, allowed: bool) -> None:
    assert allowed_by(command, ALLOWED) is allowed


def test_compound_lines() -> None:
    assert [is_compound(c) for c in ("ls -la", "echo $HOME", "a;b", "a & b", "echo `x`",
                                     "cat <f", "echo \"a|b\"")] == [
        False, False, True, True, True, True, True]


def test_hidden_characters_are_escaped_and_the_rest_kept() -> None:
    assert escaped(HOSTILE) == "touch pwned \\x1b[2K\\x1b[1Gpytest -q"
    assert escaped("a\rb\x07\u202ec\u200bd\u00a0e") == "a\\rb\\x07\\u202ec\\u200bd\\xa0e"
    assert escaped("ls -la 'é ü'\n\tok") == "ls -la 'é ü'\n\tok"


async def test_an_escape_sequence_line_asks_shown_escaped_without_always(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)  # with the opt-out, "touch" alone would run it unasked
    approver = Approver("always")
    session, _channel = _session(tmp_path, run("c1", HOSTILE), approver,
                                allowed_commands=["touch"], allow_unsandboxed=True)
    events = await _turn(session)
    [asked] = approver.asked
    assert asked.action == "touch pwned \\x1b[2K\\x1b[1Gpytest -q" and not asked.can_always
    assert "\x1b" not in "".join(str(getattr(e, "command", "")) for e in events)
    assert [e.command for e in events if isinstance(e, CommandStarted)] == [asked.action]
    assert Approvals(tmp_path).allowed("command") == frozenset()  # "always" kept nothing


async def test_allowed_commands_with_no_sandbox_ask_saying_not_sandboxed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    approver = Approver("refuse")
    session, channel = _session(tmp_path, run("c1", "pytest -q"), approver,
                                allowed_commands=["pytest"])
    await _turn(session)
    [asked] = approver.asked
    assert asked.where == "not sandboxed: install bubblewrap" and not asked.can_always
    assert _outputs(channel) == ["declined: the user did not allow this command"]


async def test_an_always_answer_with_no_sandbox_still_asks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    Approvals(tmp_path).add("command", "touch made")
    approver = Approver("refuse")
    session, _ = _session(tmp_path, run("c1", "touch made"), approver)
    await _turn(session)
    assert [a.action for a in approver.asked] == ["touch made"]
    assert not (tmp_path / "made").exists()


async def test_allowed_commands_run_unasked_inside_the_sandbox(tmp_path: Path) -> None:
    _needs_sandbox()
    approver = Approver("refuse")
    session, _channel = _session(tmp_path, run("c1", "touch made"), approver,
                                allowed_commands=["touch"])
    events = await _turn(session)
    assert approver.asked == [] and (tmp_path / "made").exists()
    assert [e.sandboxed for e in events if isinstance(e, CommandStarted)] == [True]


async def test_a_planted_approvals_file_in_the_repo_approves_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    planted = {"version": 1, "kind": "approved", "command": ["touch made"],
               "mcp": ["mcp__x__y"]}
    (tmp_path / ".spark").mkdir()
    (tmp_path / ".spark" / APPROVED_FILE).write_text(json.dumps(planted))
    approver = Approver("refuse")
    session, _ = _session(tmp_path, run("c1", "touch made"), approver, allow_unsandboxed=True)
    await _turn(session)
    assert [a.action for a in approver.asked] == ["touch made"]
    assert not (tmp_path / "made").exists()


async def test_a_corrupt_approvals_file_warns_counts_as_empty_and_is_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    path = Approvals(tmp_path).path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text('{"command": ["touch made"')  # cut short
    approver = Approver("always")
    session, _ = _session(tmp_path, run("c1", "touch made"), approver, allow_unsandboxed=True)
    await _turn(session)
    [asked] = approver.asked
    assert "unusable" in asked.where and "approved.json.corrupt" in asked.where
    assert path.with_name(APPROVED_FILE + ".corrupt").read_text() == '{"command": ["touch made"'
    assert (tmp_path / "made").exists()
    assert Approvals(tmp_path).allowed("command") == {"touch made"}  # "always" again works


def test_an_unusable_approvals_file_that_cannot_move_aside_is_never_overwritten(
        tmp_path: Path) -> None:
    approvals = Approvals(tmp_path, tmp_path / "state")
    approvals.path.parent.mkdir()
    approvals.path.write_text("[1, 2]")
    (approvals.path.parent / (APPROVED_FILE + ".corrupt") / "x").mkdir(parents=True)
    assert approvals.allowed("command") == frozenset()
    approvals.add("command", "touch made")
    assert "left in place" in approvals.problem
    assert approvals.path.read_text() == "[1, 2]"


async def test_the_sandbox_policy_with_no_sandbox_refuses_tests_too(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    settings = load_settings(tmp_path, {"commands": "sandbox", "test_command": "touch ran"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    outcome = await run_requested_tests(tmp_path, settings)
    assert isinstance(outcome, NoTestCommand) and outcome.reason == "refused"
    assert "no sandbox" in outcome.message and "install bubblewrap" in outcome.message
    assert not (tmp_path / "ran").exists()


async def test_esc_while_an_allowed_line_runs_still_stops_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _no_sandbox(monkeypatch)
    session, _ = _session(tmp_path, run("c1", "sleep 30"), Approver("refuse"),
                          allowed_commands=["sleep"], allow_unsandboxed=True)
    events: list[Any] = []

    async def collect() -> None:
        async for event in session.run_turn("run it", []):
            events.append(event)
            if isinstance(event, CommandStarted):
                await session.interrupt()

    async with asyncio.timeout(10):
        await collect()
    assert [e.ended for e in events if isinstance(e, CommandFinished)] == ["stopped"]

"""A harness's limits on a turn: ``max_requests`` ends the tool loop, the deadline's time left
is in every request's instructions (the first and each follow-up, recomputed)."""

from __future__ import annotations

import types
from pathlib import Path

import pytest

from spark_cli.protocol.channel import ToolOutput
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import TurnCompleted
from spark_cli.session.spend import limits as limits_module
from spark_cli.session.spend.limits import TIME_HEAD, Limits
from spark_cli.session.tool_loop import NOT_RUN
from tests.session.test_tool_loop import APP, BLOCK, ResponsesChannel, Tools, _collect, call

SCRIPT = [["Let me look.\n", *call("c1", "read_file", path="app.py")], [BLOCK, "Done.\n"]]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def _session(repo: Path, channel: ResponsesChannel, limits: Limits) -> Session:
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    return Session(channel, repo, settings, run_tool=Tools(), limits=limits)


async def test_each_request_states_the_time_left_then(repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    clock = iter([900.0, 960.5])
    monkeypatch.setattr(limits_module, "time", types.SimpleNamespace(monotonic=lambda: next(clock)))
    channel = ResponsesChannel(SCRIPT)
    events = await _collect(_session(repo, channel, Limits(deadline=1000.0)))
    assert isinstance(events[-1], TurnCompleted) and events[-1].status == "completed"
    notes = [r.instructions.split(TIME_HEAD) for r in channel.requests]
    assert [len(n) for n in notes] == [2, 2]  # one note each, the older one replaced
    assert "ends in 100 s" in notes[0][1] and "ends in 40 s" in notes[1][1]
    assert notes[0][0] == notes[1][0]


async def test_max_requests_ends_the_tool_loop_with_its_calls_answered(repo: Path) -> None:
    channel = ResponsesChannel(SCRIPT)
    session = _session(repo, channel, Limits(max_requests=1))
    events = await _collect(session)
    done = events[-1]
    assert isinstance(done, TurnCompleted)
    assert (done.status, done.reason) == ("incomplete", "max_turns")
    assert len(channel.requests) == 1 and done.usage is not None and done.usage.requests == 1
    assert [i.output for i in session.history if isinstance(i, ToolOutput)] == [NOT_RUN]
    assert (repo / "app.py").read_text() == APP

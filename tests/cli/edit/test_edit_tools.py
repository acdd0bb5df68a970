"""`spark edit` with tools: no PATH on a terminal works on the whole repo, each call is a line
on stderr and a pair of --json events, the pipe filter and --no-tools declare no tools.

The real session runs over a scripted channel (one script per request) with a stand-in for
``spark_cli.tools.run.run_tool``."""

from __future__ import annotations

import contextlib
import functools
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from spark_cli.cli import wiring
from spark_cli.cli.edit import edit_cmd, edit_run
from spark_cli.cli.edit.turn_result import EXIT_NO_EDIT
from spark_cli.cli.main import app
from spark_cli.protocol.channel import (
    Capabilities,
    RequestSent,
    TextDelta,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    ToolOutput,
    TurnFinished,
    TurnRequest,
)
from spark_cli.session.conversation import Session

PY = "TAX_RATE = 0.2\n\n\ndef total_price(items):\n    return sum(items)\n"
EDIT = ("src/pricing.py\n<<<<<<< SEARCH\nTAX_RATE = 0.2\n=======\nTAX_RATE = 0.25\n"
        ">>>>>>> REPLACE\n")


@dataclass(frozen=True, slots=True)
class Result:
    ok: bool
    output: str
    summary: str


def run_tool(root: Path, name: str, arguments_json: str, *, readable: Any = (),
             cancel: Any = None) -> Result:
    args = json.loads(arguments_json)
    if name == "search":
        return Result(True, f"src/pricing.py:1:TAX_RATE = 0.2  # {args['pattern']}", "1 hit")
    if name == "read_file":
        text = (root / args["path"]).read_text()
        return Result(True, text, f"{len(text.splitlines())} lines")
    return Result(False, f"error: unknown tool {name!r}", "unknown tool")


def _call(call_id: str, name: str, **args: Any) -> list[Any]:
    return [ToolCallOpened(call_id, name),
            ToolCallCompleted(ToolCall(call_id, name, json.dumps(args)))]


SEARCH_READ_EDIT = [
    ["Looking for the rate.\n", *_call("c1", "search", pattern="TAX_RATE")],
    [*_call("c2", "read_file", path="src/pricing.py")],
    ["Raising it.\n", EDIT],
]


class Channel:
    def __init__(self, scripts: list[list[Any]]) -> None:
        self.scripts = scripts
        self.requests: list[TurnRequest] = []

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities()

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        script = self.scripts[min(len(self.requests), len(self.scripts) - 1)]
        self.requests.append(request)
        yield RequestSent(time.perf_counter())
        for event in script:
            yield TextDelta(event) if isinstance(event, str) else event
        yield TurnFinished("completed")

    async def steer(self, text: str) -> None: ...
    async def stop(self) -> None: ...
    async def warm(self, request: TurnRequest | None = None) -> None: ...
    async def aclose(self) -> None: ...


@pytest.fixture
def repo(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> dict[str, Any]:
    state: dict[str, Any] = {"scripts": SEARCH_READ_EDIT, "channel": None}

    @contextlib.asynccontextmanager
    async def fake_channel(provider: Any, **_: Any) -> AsyncIterator[Channel]:
        state["channel"] = Channel(state["scripts"])
        yield state["channel"]

    monkeypatch.setattr(wiring, "open_provider_channel", fake_channel)
    monkeypatch.setattr(wiring, "send_ahead", lambda *a, **k: None)
    monkeypatch.setattr(edit_run, "Session", functools.partial(Session, run_tool=run_tool))
    monkeypatch.setattr(edit_cmd, "stdin_code", lambda: None)
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / ".no-config"))
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "pricing.py").write_text(PY)
    (tmp_path / "README.md").write_text("# shop\n")
    monkeypatch.chdir(tmp_path)
    state["root"] = tmp_path
    return state


def _run(args: list[str], stdin: bytes | None = None) -> Any:
    return CliRunner().invoke(app, ["edit", *args], input=stdin)


def test_no_path_on_a_terminal_works_on_the_whole_repo(repo: dict[str, Any]) -> None:
    result = _run(["-m", "the tax rate should be 25%"])
    assert result.exit_code == 0, result.output
    assert (repo["root"] / "src" / "pricing.py").read_text() == PY.replace("0.2", "0.25")
    assert result.stderr.splitlines()[:2] == ["search TAX_RATE → 1 hit",
                                              "read src/pricing.py → 5 lines"]
    assert "search TAX_RATE" not in result.stdout
    assert "2 tool calls" in result.stdout and "Raising it." in result.stdout
    first, _, third = repo["channel"].requests
    assert [t.name for t in first.tools] == ["read_file", "search", "list_files"]
    outputs = [i for i in third.messages if isinstance(i, ToolOutput)]
    assert [o.call_id for o in outputs] == ["c1", "c2"] and "TAX_RATE = 0.2" in outputs[1].output


def test_json_has_a_started_and_a_finished_event_per_call(repo: dict[str, Any]) -> None:
    result = _run(["-m", "the tax rate should be 25%", "--json"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    calls = [e for e in events if e["type"].startswith("tool_call")]
    assert [(e["type"], e["call_id"]) for e in calls] == [
        ("tool_call_started", "c1"), ("tool_call_finished", "c1"),
        ("tool_call_started", "c2"), ("tool_call_finished", "c2")]
    done = calls[1]
    assert done["name"] == "search" and json.loads(done["arguments"]) == {"pattern": "TAX_RATE"}
    assert done["ok"] is True and done["summary"] == "1 hit" and done["ms"] >= 0
    completed = next(e for e in events if e["type"] == "turn_completed")
    assert completed["tool_calls"] == 2 and completed["tool_time_s"] >= 0
    assert events[-1]["type"] == "summary" and events[-1]["tool_calls"] == 2


def test_no_tools_declares_none(repo: dict[str, Any]) -> None:
    repo["scripts"] = [["Nothing to do.\n"]]
    result = _run(["src/pricing.py", "-m", "explain", "--no-tools"])
    assert result.exit_code == EXIT_NO_EDIT, result.output  # prose only: no edit is news
    assert repo["channel"].requests[0].tools == ()


def test_the_pipe_filter_declares_no_tools(repo: dict[str, Any],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(edit_cmd, "stdin_code", lambda: PY.encode())
    repo["scripts"] = [["Nothing to do.\n"]]
    result = _run(["-m", "explain"], PY.encode())
    assert result.exit_code == EXIT_NO_EDIT, result.output
    assert result.stdout == PY
    assert repo["channel"].requests[0].tools == ()

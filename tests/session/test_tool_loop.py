"""The tool loop over a scripted channel: calls run in order, items in the contract's order,
preamble kept, the budget, bad calls, interrupt mid-tool, edits across responses."""

from __future__ import annotations

import asyncio
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from session_fakes import ResponsesChannel
from waiting import wait_until

from spark_cli.edits.disk.journal import history
from spark_cli.protocol.channel import (
    Message,
    ToolCall,
    ToolCallCompleted,
    ToolCallOpened,
    ToolOutput,
    TurnFinished,
)
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.conversation import Session
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    ProseDelta,
    ToolCallFinished,
    ToolCallStarted,
    ToolLoopStopped,
    TurnCompleted,
)
from spark_cli.session.tool_loop import CANCELLED, NOT_RUN

APP = "def total(items):\n    return sum(items)\n"
BLOCK = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
         "    return sum(items) or 0\n>>>>>>> REPLACE\n")


@dataclass(frozen=True, slots=True)
class Result:
    ok: bool
    output: str
    summary: str


class Tools:
    """A stand-in for ``spark_cli.tools.run.run_tool``: records calls; ``block`` makes a call
    wait until it is cancelled."""

    def __init__(self, *, block: str | None = None) -> None:
        self.calls: list[tuple[str, str, tuple[str, ...]]] = []
        self.block = block
        self.cancelled = threading.Event()
        self.running = threading.Event()

    def __call__(self, root: Path, name: str, arguments_json: str, *,
                 readable: Any = (), cancel: threading.Event | None = None) -> Result:
        self.calls.append((name, arguments_json, tuple(readable)))
        if name == self.block and cancel is not None:
            self.running.set()
            cancel.wait(10)
            self.cancelled.set()
            return Result(False, "cancelled", "cancelled")
        try:
            args = json.loads(arguments_json)
        except ValueError:
            return Result(False, "error: the arguments are not JSON", "bad arguments")
        if name == "search":
            return Result(True, f"app.py:2:    return sum(items)  # {args['pattern']}", "1 hit")
        if name == "read_file":
            return Result(True, f"1 {APP}", "2 lines")
        return Result(False, f"error: unknown tool {name!r}", "unknown tool")


def call(call_id: str, name: str, **args: Any) -> list[Any]:
    raw = json.dumps(args)
    return [ToolCallOpened(call_id, name), ToolCallCompleted(ToolCall(call_id, name, raw))]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def _session(repo: Path, channel: ResponsesChannel, runner: Tools, **flags: Any) -> Session:
    settings = load_settings(repo, flags, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    return Session(channel, repo, settings, run_tool=runner)


async def _collect(session: Session, instruction: str = "make total safe",
                   files: tuple[str, ...] = ()) -> list[Any]:
    async with asyncio.timeout(10):
        return [event async for event in session.run_turn(instruction, list(files))]


async def test_several_calls_run_in_order_and_the_follow_up_carries_them_in_order(
        repo: Path) -> None:
    channel = ResponsesChannel([
        ["Let me look.\n", *call("c1", "search", pattern="sum"),
         *call("c2", "read_file", path="app.py")],
        ["Found it.\n", BLOCK, "Done.\n"],
    ])
    tools = Tools()
    session = _session(repo, channel, tools)
    events = await _collect(session)
    assert [name for name, _, _ in tools.calls] == ["search", "read_file"]
    first, follow = channel.requests
    assert first.tools and [t.name for t in first.tools] == ["read_file", "search", "list_files",
                                                             "run_command"]
    assert follow.tools == first.tools
    added = follow.messages[len(first.messages):]
    assert added[0] == Message("assistant", "Let me look.\n")
    assert [type(i) for i in added[1:]] == [ToolCall, ToolCall, ToolOutput, ToolOutput]
    assert [i.call_id for i in added[1:]] == ["c1", "c2", "c1", "c2"]
    assert follow.messages[:len(first.messages)] == first.messages
    kinds = [type(e) for e in events if not isinstance(e, ProseDelta)]
    start = kinds.index(ToolCallStarted)
    assert kinds[start:] == [ToolCallStarted, ToolCallFinished, ToolCallStarted, ToolCallFinished,
                             *kinds[start + 4:]]
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [f.line for f in finished] == ["search sum → 1 hit", "read app.py → 2 lines"]
    assert finished[0].label == "search sum"
    assert all(f.ok and f.ms >= 0 for f in finished)
    assert "or 0" in (repo / "app.py").read_text()
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "completed"
    assert final.tool_calls == 2 and final.tool_time_s > 0 and final.applied == 1
    prose = "".join(e.text for e in events if isinstance(e, ProseDelta))
    assert prose.startswith("Let me look.\n") and "Done." in prose
    # the conversation keeps every item; the next turn extends it
    assert session.history[:-1] == list(follow.messages)
    assert session.history[-1] == Message("assistant", f"Found it.\n{BLOCK}Done.\n")
    assert len(session.marks.round_trips) == 1


async def test_a_bad_call_gets_an_error_result_under_its_own_id(repo: Path) -> None:
    channel = ResponsesChannel([
        [ToolCallCompleted(ToolCall("bad_1", "search", '{"pattern": "x"')),
         *call("bad_2", "rm_rf", path="/"), *call("ok_3", "search", pattern="x")],
        ["Nothing to do.\n"],
    ])
    events = await _collect(_session(repo, channel, Tools()))
    outputs = [i for i in channel.requests[1].messages if isinstance(i, ToolOutput)]
    assert [o.call_id for o in outputs] == ["bad_1", "bad_2", "ok_3"]
    assert "not JSON" in outputs[0].output and "unknown tool" in outputs[1].output
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert [f.ok for f in finished] == [False, False, True]
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "completed"


async def test_the_budget_stops_a_model_that_loops(repo: Path) -> None:
    looping = [*call("a", "search", pattern="x"), *call("b", "search", pattern="y")]
    n = 0

    def again(request: Any) -> list[Any]:
        nonlocal n
        n += 1
        return [f"try {n}\n", *call(f"a{n}", "search", pattern="x"),
                *call(f"b{n}", "search", pattern="y")]

    channel = ResponsesChannel([looping, again])
    session = _session(repo, channel, Tools(), max_tool_calls=3)
    events = await _collect(session)
    stopped = [e for e in events if isinstance(e, ToolLoopStopped)]
    assert len(stopped) == 1
    assert stopped[0].message == ("stopped: the model made 3 tool calls in this turn "
                                  "(max_tool_calls)")
    assert (stopped[0].calls, stopped[0].not_run) == (3, 1)
    assert len(channel.requests) == 2  # nothing is sent after the budget is spent
    final = events[-1]
    assert isinstance(final, TurnCompleted)
    assert (final.status, final.reason, final.tool_calls) == ("incomplete", "max_tool_calls", 3)
    calls = [i.call_id for i in session.history if isinstance(i, ToolCall)]
    answered = [i.call_id for i in session.history if isinstance(i, ToolOutput)]
    assert calls == answered == ["a", "b", "a1", "b1"]
    assert "max_tool_calls" in session.history[-1].output  # type: ignore[union-attr]


async def test_interrupt_mid_tool_stops_at_once_and_keeps_the_conversation_valid(
        repo: Path) -> None:
    channel = ResponsesChannel([
        ["Reading.\n", *call("r1", "search", pattern="x"), *call("r2", "list_files"),
         *call("r3", "search", pattern="z")],
        ["never sent\n"],
    ])
    tools = Tools(block="list_files")
    session = _session(repo, channel, tools)
    events: list[Any] = []

    async def esc_while_it_runs() -> None:  # as a key handler would, from another task
        await asyncio.to_thread(tools.running.wait, 5)
        await session.interrupt()

    async with asyncio.timeout(10):
        esc = asyncio.create_task(esc_while_it_runs())
        async for event in session.run_turn("look around", []):
            events.append(event)
        await esc
    assert tools.cancelled.wait(5)  # the running tool saw its cancel
    assert len(channel.requests) == 1 and not channel.stopped.is_set()
    final = events[-1]
    assert isinstance(final, TurnCompleted)
    assert (final.status, final.reason) == ("cancelled", "interrupted")
    assert [name for name, _, _ in tools.calls] == ["search", "list_files"]
    outputs = {i.call_id: i.output for i in session.history if isinstance(i, ToolOutput)}
    assert outputs["r2"] == CANCELLED and outputs["r3"] == CANCELLED
    assert "return sum" in outputs["r1"]  # what was read is kept
    # the next turn sends a valid conversation: every call answered, then the new message
    channel.responses.append(["ok\n"])
    await _collect(session, "go on")
    sent = channel.requests[-1].messages
    calls = [i.call_id for i in sent if isinstance(i, ToolCall)]
    assert calls == [i.call_id for i in sent if isinstance(i, ToolOutput)]
    assert isinstance(sent[-1], Message) and sent[-1].role == "user"


async def test_an_interrupt_while_the_calls_stream_answers_them_not_run(repo: Path) -> None:
    session: Session

    async def esc() -> None:
        await session.interrupt()

    channel = ResponsesChannel([["Hm.\n", *call("x1", "search", pattern="q"), "more\n",
                                 "and more\n"]])
    session = _session(repo, channel, Tools())
    events: list[Any] = []
    async for event in session.run_turn("x", []):
        events.append(event)
        if isinstance(event, ProseDelta) and "more" in event.text:
            await esc()
    assert len(channel.requests) == 1
    outputs = [i for i in session.history if isinstance(i, ToolOutput)]
    assert [(o.call_id, o.output) for o in outputs] == [("x1", NOT_RUN)]
    assert isinstance(events[-1], TurnCompleted) and events[-1].status == "cancelled"


async def test_edits_apply_in_every_response_with_one_undo_batch_and_no_leaking_block(
        repo: Path) -> None:
    (repo / "b.py").write_text("X = 1\n")
    half = "b.py\n<<<<<<< SEARCH\nX = 1\n"
    rest = "=======\nX = 2\n>>>>>>> REPLACE\n"
    channel = ResponsesChannel([
        [BLOCK, half, *call("s", "search", pattern="X")],
        [rest, "b.py\n<<<<<<< SEARCH\nX = 1\n=======\nX = 3\n>>>>>>> REPLACE\n"],
    ])
    events = await _collect(_session(repo, channel, Tools()))
    assert "or 0" in (repo / "app.py").read_text()
    assert (repo / "b.py").read_text() == "X = 3\n"  # the half block never joined the rest
    assert sum(isinstance(e, EditLanded) for e in events) == 2
    assert any(isinstance(e, BlockRejected) for e in events)
    batches = history(undo_dir(repo))
    assert len(batches) == 1 and sorted(r.path for r in batches[0].files) == ["app.py", "b.py"]


async def test_ttft_is_the_first_responses_first_output_even_a_call(repo: Path) -> None:
    channel = ResponsesChannel([[*call("c", "search", pattern="x")], ["ok\n"]])
    session = _session(repo, channel, Tools())
    events = await _collect(session)
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.ttft_s is not None
    marks = session.marks
    assert marks.first_output_at is not None and marks.first_delta_at is not None
    assert marks.request_sent_at is not None
    assert final.ttft_s == pytest.approx(marks.first_output_at - marks.request_sent_at)
    assert final.ttft_s < marks.first_delta_at - marks.request_sent_at


async def test_ttft_counts_from_the_first_attempt_of_the_first_response(repo: Path) -> None:
    """Retries of the first request and of the follow-up: TTFT still runs from the first
    attempt of the first request, and the round trip from the follow-up's first attempt."""
    import time

    from spark_cli.protocol.channel import RequestSent, WaitingToRetry

    def retried(*events: Any) -> Any:  # a retry whose request leaves "later" than any output
        return lambda request: [WaitingToRetry(0.0, "dropped", 1),
                                RequestSent(time.perf_counter() + 50), *events]

    channel = ResponsesChannel([retried(*call("c", "search", pattern="x")), retried("ok\n")])
    session = _session(repo, channel, Tools())
    events = await _collect(session)
    final = events[-1]
    marks = session.marks
    assert isinstance(final, TurnCompleted) and final.ttft_s is not None
    assert marks.request_sent_at is not None and marks.first_output_at is not None
    assert 0 < final.ttft_s == pytest.approx(marks.first_output_at - marks.request_sent_at)
    assert len(marks.round_trips) == 1 and marks.round_trips[0] < 50


async def test_tools_off_declares_none_and_ignores_calls(repo: Path) -> None:
    channel = ResponsesChannel([["hi\n", *call("c", "search", pattern="x")]])
    tools = Tools()
    session = _session(repo, channel, tools, tools=False)
    events = await _collect(session)
    assert channel.requests[0].tools == () and len(channel.requests) == 1
    assert tools.calls == [] and isinstance(events[-1], TurnCompleted)
    assert not any(isinstance(i, ToolCall) for i in session.history)


async def test_readable_is_the_files_the_user_named(repo: Path) -> None:
    channel = ResponsesChannel([[*call("c", "read_file", path="app.py")], ["ok\n"]])
    tools = Tools()
    session = _session(repo, channel, tools)
    await _collect(session, files=("app.py",))
    assert tools.calls[0][2] == ("app.py",)
    assert session.readable == ["app.py"]


async def test_steer_between_calls_is_refused_so_the_front_end_resends(repo: Path) -> None:
    channel = ResponsesChannel([[*call("c", "list_files")], ["ok\n"]], steer=True)
    tools = Tools(block="list_files")
    session = _session(repo, channel, tools)

    async def enter_while_it_runs() -> bool:
        await asyncio.to_thread(tools.running.wait, 5)
        steered = await session.steer("no, look elsewhere")
        await session.interrupt()
        return steered

    async with asyncio.timeout(10):
        enter = asyncio.create_task(enter_while_it_runs())
        async for _ in session.run_turn("x", []):
            pass
        assert await enter is False
    assert channel.steered == []


async def test_a_failed_follow_up_keeps_every_call_answered(repo: Path) -> None:
    channel = ResponsesChannel([[*call("c", "search", pattern="x")],
                                ["par", TurnFinished("failed", "boom")]])
    session = _session(repo, channel, Tools())
    await _collect(session)
    calls = [i.call_id for i in session.history if isinstance(i, ToolCall)]
    assert calls == [i.call_id for i in session.history if isinstance(i, ToolOutput)] == ["c"]


async def test_an_output_that_would_overflow_the_window_is_cut_with_a_note(repo: Path) -> None:
    huge = "".join(f"app.py:{i}: value_number = {i}\n" for i in range(3000))

    class Flood(Tools):
        def __call__(self, root: Path, name: str, arguments_json: str, *,
                     readable: Any = (), cancel: threading.Event | None = None) -> Result:
            super().__call__(root, name, arguments_json, readable=readable, cancel=cancel)
            return Result(True, huge, "3000 hits")

    channel = ResponsesChannel([[*call("a", "search", pattern="v")],
                                [*call("b", "search", pattern="w")], ["ok\n"]])
    session = _session(repo, channel, Flood(), context_window=12_000, max_output_tokens=2_000,
                       auto_compact=False)  # the room made without a compaction
    events = await _collect(session)
    assert isinstance(events[-1], TurnCompleted)
    budget = session.settings.input_budget
    from spark_cli.session.context.tool_outputs import items_tokens

    for request in channel.requests[1:]:
        added = request.messages[len(channel.requests[0].messages):]
        assert session.context_tokens + items_tokens(added) <= budget
    last = [i for i in channel.requests[2].messages if isinstance(i, ToolOutput)]
    assert last[0].output.startswith("[tool output dropped")  # the older one made room first
    assert "lines shown" in last[1].output and last[1].output.startswith("app.py:0:")
    finished = [e for e in events if isinstance(e, ToolCallFinished)]
    assert finished[1].output == last[1].output  # the front end sees what the model saw


async def test_enter_between_calls_resends_with_what_was_read(repo: Path) -> None:
    from spark_cli.session.interaction import Interaction, Redirected, TurnEnded, TurnStarted

    channel = ResponsesChannel([
        ["Reading.\n", *call("r1", "search", pattern="x"), *call("r2", "list_files")],
        ["Looking elsewhere.\n"],
    ], steer=True)
    tools = Tools(block="list_files")
    session = _session(repo, channel, tools)
    events: list[Any] = []
    interaction = Interaction(session, events.append)
    async with asyncio.timeout(10):
        interaction.submit("find the rate")
        await asyncio.to_thread(tools.running.wait, 5)
        interaction.submit("no, look in src/")
        await wait_until(lambda: sum(isinstance(e, TurnEnded) for e in events) >= 2)
    assert [e.how for e in events if isinstance(e, Redirected)] == ["resend"]
    assert [e.why for e in events if isinstance(e, TurnStarted)] == ["sent", "redirect"]
    assert channel.steered == []
    resent = channel.requests[-1].messages
    outputs = {i.call_id: i.output for i in resent if isinstance(i, ToolOutput)}
    assert "return sum" in outputs["r1"] and outputs["r2"] == CANCELLED  # what was read stays
    assert isinstance(resent[-1], Message) and "no, look in src/" in resent[-1].content


async def test_an_interrupt_as_the_response_ends_runs_no_call(repo: Path) -> None:
    class SlowToStop(ResponsesChannel):
        async def stop(self) -> None:  # the response still ends completed, its calls made
            return None

    channel = SlowToStop([["Hm.\n", *call("x1", "search", pattern="q")]])
    tools = Tools()
    session = _session(repo, channel, tools)
    events: list[Any] = []
    async for event in session.run_turn("x", []):
        events.append(event)
        if isinstance(event, ProseDelta):
            await session.interrupt()
    assert tools.calls == [] and len(channel.requests) == 1
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "cancelled"
    outputs = [i for i in session.history if isinstance(i, ToolOutput)]
    assert [(o.call_id, o.output) for o in outputs] == [("x1", NOT_RUN)]


async def test_prime_warms_the_tools_once_per_repo_and_counts_nothing(tmp_path: Path) -> None:
    from spark_cli.session.tool_loop import PRIME_ARGUMENTS, ToolLoop

    tools = Tools()
    first = ToolLoop(tmp_path, tools, readable=(), limit=5, used=0, cap=10_000)
    first.prime()
    ToolLoop(tmp_path, tools, readable=(), limit=5, used=0, cap=10_000).prime()
    ToolLoop(tmp_path / "x", tools, readable=(), limit=5, used=0, cap=10_000,
             warm=False).prime()
    await asyncio.get_running_loop().shutdown_default_executor()  # every prime has run
    assert tools.calls == [("search", PRIME_ARGUMENTS, ())]
    assert first.count == 0 and first.items == []


async def test_a_consumer_that_goes_away_mid_loop_leaves_every_call_answered(
        repo: Path) -> None:
    channel = ResponsesChannel([["Hm.\n", *call("a", "search", pattern="x"),
                                 *call("b", "search", pattern="y")], ["ok\n"]])
    session = _session(repo, channel, Tools())
    turn = session.run_turn("x", [])
    async for event in turn:
        if isinstance(event, ToolCallStarted):
            break  # the app closed while the first call was about to run
    await turn.aclose()
    calls = [i.call_id for i in session.history if isinstance(i, ToolCall)]
    outputs = [(i.call_id, i.output) for i in session.history if isinstance(i, ToolOutput)]
    assert calls == ["a", "b"] and outputs == [("a", CANCELLED), ("b", CANCELLED)]
    assert not session.streaming

"""Session.run_turn with a scripted channel (and once with the real engine over the WebSocket).

Pins: edits land on disk while the answer is still streaming; an interrupted or
failed answer never half-applies a block; the conversation keeps the partial
answer; TTFT and tok/s come from the channel's marks and usage; a request
problem fails the turn before anything is sent.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest
from trusting import state_env, trust

from spark_cli.edits.model.blocks import BlockRejected, ProseDelta
from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    Queued,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
    UsageReported,
    WaitingToRetry,
)
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import INTERRUPTED_NOTE, Session
from spark_cli.session.events import EditLanded, EditRefused, TurnCompleted, TurnFailed

PY = "def total_price(items):\n    return sum(items)\n"
BLOCK = ("app.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
         "def grand_total(items):\n>>>>>>> REPLACE\n")
OPEN_BLOCK = "app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n    return 0\n"


class Script:
    """A Channel that yields ``events`` (strings become TextDeltas), with a hook per event."""

    def __init__(self, events: Sequence[Any], *, before: Callable[[int], Any] | None = None,
                 steer: bool = False) -> None:
        self.events = list(events)
        self.before = before
        self.requests: list[TurnRequest] = []
        self.stopped = False
        self._caps = Capabilities(steer=steer)

    @property
    def capabilities(self) -> Capabilities:
        return self._caps

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        self.requests.append(request)
        for index, event in enumerate(self.events):
            if self.before is not None:
                result = self.before(index)
                if asyncio.iscoroutine(result):
                    await result
            if self.stopped:
                yield TurnFinished("cancelled")
                return
            if isinstance(event, BaseException):
                raise event
            yield TextDelta(event) if isinstance(event, str) else event
            await asyncio.sleep(0)  # yields to the loop, as a socket read does

    async def steer(self, text: str) -> None: ...
    async def stop(self) -> None:
        self.stopped = True

    async def warm(self, request: TurnRequest | None = None) -> None: ...
    async def aclose(self) -> None: ...


def chunks(text: str, size: int = 5) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(PY)
    return root


@pytest.fixture
def settings(repo: Path, tmp_path: Path):
    return load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})


async def collect(session: Session, instruction: str, files: list[str]) -> list[Any]:
    out = []
    async with asyncio.timeout(20):
        async for event in session.run_turn(instruction, files):
            out.append(event)
    return out


async def test_edit_lands_on_disk_while_the_answer_is_still_streaming(repo, settings):
    tail = chunks("Now the rest of the explanation.\nMore prose.\n")
    seen_on_disk: list[str] = []
    events: list[Any] = [RequestSent(0.0), *chunks("Renaming.\n" + BLOCK), *tail,
                         TurnFinished("completed")]
    first_tail = len(events) - len(tail) - 1

    def before(index: int) -> None:
        if index == first_tail:  # the block is closed; the answer is far from over
            seen_on_disk.append((repo / "app.py").read_text())

    session = Session(Script(events, before=before), repo, settings)
    out = await collect(session, "rename total_price to grand_total", ["app.py"])
    assert seen_on_disk and "def grand_total(items):" in seen_on_disk[0]
    landed = [e for e in out if isinstance(e, EditLanded)]
    assert len(landed) == 1 and landed[0].outcome.path == "app.py"
    assert out.index(landed[0]) < len(out) - 2
    final = out[-1]
    assert isinstance(final, TurnCompleted) and final.status == "completed"
    assert final.applied == 1 and final.refused == 0
    prose = "".join(e.text for e in out if isinstance(e, ProseDelta))
    assert "Renaming." in prose and "More prose." in prose


async def test_interrupted_turn_never_half_applies_the_open_block(repo, settings):
    events = ["Changing it.\n", *chunks(OPEN_BLOCK), "    # more\n", "still going\n",
              TurnFinished("completed")]
    box: dict[str, Session] = {}

    async def before(index: int) -> None:
        if index == len(events) - 3:
            await box["s"].interrupt()

    channel = Script(events, before=before)
    session = box["s"] = Session(channel, repo, settings)
    out = await collect(session, "make it return 0", ["app.py"])
    assert channel.stopped
    assert (repo / "app.py").read_text() == PY
    assert not [e for e in out if isinstance(e, EditLanded)]
    final = out[-1]
    assert isinstance(final, TurnCompleted)
    assert final.status == "cancelled" and final.reason == "interrupted"
    assert final.dropped_blocks == 1
    dropped = [e for e in out if isinstance(e, BlockRejected)]
    assert dropped and "not applied" in dropped[0].message
    # the partial answer joins the conversation for the next turn
    assert session.history[-1].role == "assistant"
    assert session.history[-1].content.startswith("Changing it.\n")
    assert session.history[-1].content.endswith(INTERRUPTED_NOTE)


async def test_failure_mid_stream_keeps_landed_edits_and_drops_the_open_one(repo, settings):
    (repo / "b.py").write_text("x = 1\n")
    second = "b.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 2\n"
    events = [*chunks(BLOCK), *chunks(second), ChannelError("connection", "socket dropped")]
    session = Session(Script(events), repo, settings)
    out = await collect(session, "do both", ["app.py", "b.py"])
    assert "grand_total" in (repo / "app.py").read_text()
    assert (repo / "b.py").read_text() == "x = 1\n"
    final = out[-1]
    assert isinstance(final, TurnFailed)
    assert (final.kind, final.message, final.applied) == ("connection", "socket dropped", 1)
    assert any(isinstance(e, BlockRejected) for e in out)


async def test_a_stream_without_a_final_status_is_a_protocol_failure(repo, settings):
    session = Session(Script(["hello\n"]), repo, settings)
    out = await collect(session, "hi", ["app.py"])
    assert isinstance(out[-1], TurnFailed) and out[-1].kind == "protocol"


async def test_provider_failed_status_is_a_turn_failure(repo, settings):
    session = Session(Script(["x", TurnFinished("failed", "server_error")]), repo, settings)
    out = await collect(session, "hi", ["app.py"])
    assert isinstance(out[-1], TurnFailed) and out[-1].message == "server_error"


async def test_ttft_and_tokens_per_second(repo, settings, monkeypatch):
    import spark_cli.session.turn as turn

    ticks = iter([100.0, 100.5, 101.0, 102.5, 102.8, 103.0])
    monkeypatch.setattr(turn.time, "perf_counter", lambda: next(ticks))
    events = [RequestSent(100.2), "a", "b", "c", UsageReported(10, 300),
              TurnFinished("completed")]
    # perf_counter: start 100.0, deltas at 100.5 / 101.0 / 102.5, stream end 102.8, end 103.0
    session = Session(Script(events), repo, settings)
    out = await collect(session, "hi", ["app.py"])
    final = out[-1]
    assert isinstance(final, TurnCompleted)
    assert final.ttft_s == pytest.approx(0.3)
    assert final.output_tokens == 300
    assert final.tokens_per_s == pytest.approx(300 / 2.0)
    assert final.duration_s == pytest.approx(3.0)
    assert any(isinstance(e, UsageReported) for e in out)
    assert session.marks.as_dict() == {"request_sent_at": 100.2, "first_delta_at": 100.5,
                                       "last_delta_at": 102.5, "stream_ended_at": 102.8}


async def test_ttft_after_retries_counts_from_the_first_attempt(repo, settings, monkeypatch):
    import spark_cli.session.turn as turn

    ticks = iter([100.0, 130.0, 131.0, 132.0])
    monkeypatch.setattr(turn.time, "perf_counter", lambda: next(ticks))
    events = [RequestSent(100.2), WaitingToRetry(1.0, "dropped", 1), RequestSent(120.0), "a",
              TurnFinished("completed")]
    session = Session(Script(events), repo, settings)
    final = (await collect(session, "hi", ["app.py"]))[-1]
    assert isinstance(final, TurnCompleted)
    assert final.ttft_s == pytest.approx(130.0 - 100.2)  # not 10 s from the last attempt
    assert session.marks.request_sent_at == 100.2


async def test_output_tokens_are_counted_without_usage(repo, settings):
    session = Session(Script(["hello world\n", TurnFinished("completed")]), repo, settings)
    out = await collect(session, "hi", ["app.py"])
    assert out[-1].output_tokens > 0


async def test_queue_and_retry_events_pass_through(repo, settings):
    session = Session(Script([Queued(3), "ok\n", TurnFinished("completed")]), repo, settings)
    out = await collect(session, "hi", ["app.py"])
    assert Queued(3) in out


async def test_binary_target_fails_before_anything_is_sent(repo, settings):
    (repo / "img.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    channel = Script(["never\n", TurnFinished("completed")])
    out = await collect(Session(channel, repo, settings), "x", ["img.png"])
    assert channel.requests == []
    assert isinstance(out[-1], TurnFailed) and out[-1].kind == "binary"


async def test_outside_root_fails_before_anything_is_sent(repo, settings):
    channel = Script(["never\n", TurnFinished("completed")])
    out = await collect(Session(channel, repo, settings), "x", ["../etc/passwd"])
    assert channel.requests == []
    assert out[-1].kind == "path"


async def test_second_turn_chains_and_resends_only_changed_files(repo, settings):
    (repo / "other.py").write_text("y = 1\n")
    channel = Script([*chunks(BLOCK), TurnFinished("completed")])
    session = Session(channel, repo, settings)
    await collect(session, "rename", ["app.py", "other.py"])
    channel.events = ["fine\n", TurnFinished("completed")]
    await collect(session, "now explain", ["app.py", "other.py"])
    second = channel.requests[1]
    roles = [m.role for m in second.messages]
    assert roles == ["user", "assistant", "user"]
    assert "<<<<<<< SEARCH" in second.messages[1].content
    last = second.messages[2].content
    assert "def grand_total(items):" in last  # changed by the model: sent again
    assert "other.py" not in last  # unchanged: the model already has it
    assert last.rstrip().endswith("now explain")


async def test_refused_edit_is_reported_to_the_model_next_turn(repo, settings):
    bad = "app.py\n<<<<<<< SEARCH\ndef missing():\n=======\ndef x():\n>>>>>>> REPLACE\n"
    channel = Script([*chunks(bad), TurnFinished("completed")])
    session = Session(channel, repo, settings)
    out = await collect(session, "go", ["app.py"])
    refused = [e for e in out if isinstance(e, EditRefused)]
    assert refused and out[-1].refused == 1
    assert (repo / "app.py").read_text() == PY
    channel.events = ["ok\n", TurnFinished("completed")]
    await collect(session, "again", ["app.py"])
    assert "NOT applied" in channel.requests[1].messages[-1].content


async def test_dry_run_writes_nothing(repo, settings):
    session = Session(Script([*chunks(BLOCK), TurnFinished("completed")]), repo, settings,
                      dry_run=True)
    out = await collect(session, "rename", ["app.py"])
    assert (repo / "app.py").read_text() == PY
    landed = [e for e in out if isinstance(e, EditLanded)]
    assert landed and landed[0].outcome.dry_run


async def test_with_the_real_engine_over_the_websocket(repo, settings, engine):
    from spark_cli.transport.factory import open_channel

    channel = open_channel("responses_ws", base_url=engine.url + "/v1", api_key=engine.token,
                           idle_timeout=20)
    try:
        session = Session(channel, repo, settings)
        out = await collect(session, "rename total_price to grand_total", ["app.py"])
    finally:
        await channel.aclose()
    final = out[-1]
    assert isinstance(final, TurnCompleted), final
    assert final.status == "completed" and final.applied >= 1 and final.refused == 0
    assert final.ttft_s is not None and final.output_tokens > 0
    assert "def grand_total(items):" in (repo / "app.py").read_text()


async def test_nothing_lands_after_interrupt_even_if_the_channel_keeps_streaming(repo, settings):
    box: dict[str, Session] = {}

    class Deaf(Script):
        async def stop(self) -> None:  # a channel slow to stop: keeps sending
            self.stopped_calls = getattr(self, "stopped_calls", 0) + 1

    async def before(index: int) -> None:
        if index == 1:
            await box["s"].interrupt()

    channel = Deaf(["Working.\n", *chunks(BLOCK), TurnFinished("completed")], before=before)
    session = box["s"] = Session(channel, repo, settings)
    out = await collect(session, "rename", ["app.py"])
    assert channel.stopped_calls == 1
    assert (repo / "app.py").read_text() == PY
    assert not [e for e in out if isinstance(e, EditLanded)]
    final = out[-1]
    assert isinstance(final, TurnCompleted) and final.status == "cancelled"
    assert final.reason == "interrupted"


async def test_steer_splits_the_answer_in_history_like_the_channel_saw_it(repo, settings):
    from spark_cli.protocol.channel import SteerAccepted, Steered

    box: dict[str, Session] = {}

    async def before(index: int) -> None:
        if index == 1:
            assert await box["s"].steer("use grand_total instead")

    events = ["First part. ", "More. ", SteerAccepted(), Steered("r1", "r2"), "Second part.\n",
              TurnFinished("completed")]
    channel = Script(events, before=before, steer=True)
    session = box["s"] = Session(channel, repo, settings)
    out = await collect(session, "rename", ["app.py"])
    assert isinstance(out[-1], TurnCompleted)
    assert any(isinstance(e, Steered) for e in out)
    roles = [(m.role, m.content) for m in session.history[1:]]
    assert roles == [("assistant", "First part. More. "), ("user", "use grand_total instead"),
                     ("assistant", "Second part.\n")]


async def test_steer_without_channel_support_says_no(repo, settings):
    session = Session(Script(["x", TurnFinished("completed")]), repo, settings)
    assert await session.steer("nope") is False


async def test_second_turn_chains_on_the_websocket(repo, settings, engine, monkeypatch):
    import json

    from spark_cli.transport.factory import open_channel
    from spark_cli.transport.ws.websocket import ResponsesWebSocketChannel

    bodies: list[dict] = []
    original = ResponsesWebSocketChannel._payload

    def spy(self, request, link, **kwargs):
        text = original(self, request, link, **kwargs)
        bodies.append(json.loads(text))
        return text

    monkeypatch.setattr(ResponsesWebSocketChannel, "_payload", spy)
    channel = open_channel("responses_ws", base_url=engine.url + "/v1", api_key=engine.token,
                           idle_timeout=20, warm_spare=False)
    try:  # messages only: a tool round trip's chaining is the transport's tests' (and
        # the rules brain searches before a rename when it may)
        session = Session(channel, repo, dataclasses.replace(settings, tools=False))
        await collect(session, "rename total_price to grand_total", ["app.py"])
        await collect(session, "rename grand_total to final_total", ["app.py"])
    finally:
        await channel.aclose()
    sent = [b for b in bodies if b.get("generate", True)]
    assert len(sent) == 2
    assert "previous_response_id" not in sent[0]
    assert sent[1].get("previous_response_id")
    assert len(sent[1]["input"]) == 1  # only the new user message
    assert "def final_total(items):" in (repo / "app.py").read_text()


async def test_prepare_checks_the_request_before_any_channel_exists(repo, tmp_path):
    (repo / ".spark").mkdir()
    (repo / ".spark" / "config.toml").write_text("context_window = 3000\n"
                                                 "max_output_tokens = 500\n")
    trust(repo)
    (repo / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(2000)))
    settings = load_settings(repo, {}, state_env(SPARK_CONFIG_DIR=str(tmp_path / "cfg")))
    session = Session(None, repo, settings)
    failed = session.prepare("rename value_1", ["big.py"])
    assert isinstance(failed, TurnFailed) and failed.kind == "budget"
    assert "big.py" in failed.message
    assert session.prepare("rename", ["app.py"]) is None


async def test_a_prepared_turn_is_sent_as_prepared(repo, settings):
    session = Session(None, repo, settings)
    assert session.prepare("rename", ["app.py"]) is None
    (repo / "app.py").write_text("changed after prepare\n")
    channel = Script(["ok\n", TurnFinished("completed")])
    session.attach(channel)
    out = await collect(session, "rename", ["app.py"])
    assert isinstance(out[-1], TurnCompleted)
    (request,) = channel.requests
    assert "def total_price" in request.messages[-1].content  # the prepared build was used


async def test_an_auth_failure_names_the_variable_to_set(repo, tmp_path):
    settings = load_settings(repo, {"base_url": "http://127.0.0.1:9/v1"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    error = ChannelError("auth", "401 authentication failed (invalid_api_key): missing API key")
    out = await collect(Session(Script([error]), repo, settings), "hi", ["app.py"])
    assert isinstance(out[-1], TurnFailed) and out[-1].kind == "auth"
    assert "set SPARK_API_KEY to the engine's --token" in out[-1].message

    keyed = load_settings(repo, {"provider": "cerebras"},
                          {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"),
                           "CEREBRAS_API_KEY": "csk-0123456789abcdef"})
    out = await collect(Session(Script([error]), repo, keyed), "hi", ["app.py"])
    assert "the key from CEREBRAS_API_KEY (csk…cdef) was refused" in out[-1].message
    assert "csk-0123456789abcdef" not in out[-1].message


async def test_the_providers_time_info_reaches_turn_completed(repo, settings):
    info = {"queue_time": 0.001, "completion_time": 0.2, "total_time": 0.25}
    events = [RequestSent(1.0), "a", UsageReported(3, 1, info), TurnFinished("completed")]
    out = await collect(Session(Script(events), repo, settings), "hi", ["app.py"])
    assert isinstance(out[-1], TurnCompleted) and out[-1].time_info == info


async def test_request_sent_is_passed_on_before_the_applier_is_loaded(repo, settings,
                                                                       monkeypatch):
    import spark_cli.session.lazy_applier as lazy

    order: list[str] = []
    real_get = lazy.LazyApplier.get

    def get(self: Any) -> Any:
        order.append("applier")
        return real_get(self)

    monkeypatch.setattr(lazy.LazyApplier, "get", get)
    session = Session(Script([RequestSent(1.0), "hi\n", TurnFinished("completed")]), repo,
                      settings)
    async for event in session.run_turn("hi", ["app.py"]):
        order.append(type(event).__name__)
    assert order[:2] == ["RequestSent", "applier"]

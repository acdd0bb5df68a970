"""Session turns over a scripted channel: edits land mid-stream, interrupts, history, figures."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from session_fakes import ScriptedChannel

from spark_cli.edits.disk.journal import history
from spark_cli.protocol.channel import ChannelError, RequestSent, TurnFinished, UsageReported
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.conversation import INTERRUPTED_NOTE, Session, TurnInProgress
from spark_cli.session.events import (
    BlockRejected,
    EditLanded,
    EditRefused,
    ProseDelta,
    TurnCompleted,
    TurnFailed,
)

APP = "def total(items):\n    return sum(items)\n\n\ndef name():\n    return 'shop'\n"
BLOCK_1 = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
           "    return sum(items) or 0\n>>>>>>> REPLACE\n")
BLOCK_2 = ("app.py\n<<<<<<< SEARCH\n    return 'shop'\n=======\n"
           "    return 'store'\n>>>>>>> REPLACE\n")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "app.py").write_text(APP)
    return tmp_path


def _session(repo: Path, channel: ScriptedChannel, **kwargs: Any) -> Session:
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    return Session(channel, repo, settings, **kwargs)


async def _collect(session: Session, instruction: str = "fix it",
                   files: tuple[str, ...] = ("app.py",)) -> list[Any]:
    async with asyncio.timeout(10):
        return [event async for event in session.run_turn(instruction, list(files))]


def _split(text: str, size: int = 7) -> list[str]:
    return [text[i:i + size] for i in range(0, len(text), size)]


async def test_edit_lands_on_disk_while_the_stream_is_still_open(repo: Path) -> None:
    chunks = ["Making total safe.\n", BLOCK_1, "Now the name", " is next.\n", BLOCK_2, "Done.\n"]
    on_disk: dict[int, str] = {}
    channel = ScriptedChannel(chunks,
                              on_chunk=lambda i: on_disk.setdefault(i, (repo / "app.py")
                                                                    .read_text()))
    events = await _collect(_session(repo, channel))
    assert "or 0" not in on_disk[1]          # before the block arrived
    assert "or 0" in on_disk[2]              # landed; the model is still talking
    assert "'store'" not in on_disk[4] and "'store'" in on_disk[5]
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "completed"
    assert (final.applied, final.refused, final.dropped_blocks) == (2, 0, 0)
    assert [type(e) for e in events if not isinstance(e, ProseDelta)] == [
        RequestSent, EditLanded, EditLanded, TurnCompleted]
    prose = "".join(e.text for e in events if isinstance(e, ProseDelta))
    assert prose == "Making total safe.\nNow the name is next.\nDone.\n"
    assert (repo / "app.py").read_text() == APP.replace("sum(items)", "sum(items) or 0") \
        .replace("'shop'", "'store'")
    batches = history(undo_dir(repo))
    assert len(batches) == 1 and [r.path for r in batches[0].files] == ["app.py"]


async def test_edits_land_chunk_by_chunk_too(repo: Path) -> None:
    answer = "Sure.\n" + BLOCK_1 + "ok\n"
    events = await _collect(_session(repo, ScriptedChannel(_split(answer, 1))))
    assert isinstance(events[-1], TurnCompleted) and events[-1].applied == 1
    assert "or 0" in (repo / "app.py").read_text()


async def test_interrupt_never_half_applies_the_open_block(repo: Path) -> None:
    partial_2 = BLOCK_2[: BLOCK_2.index("=======") + 12]
    chunks = ["First.\n", BLOCK_1, "Second.\n", partial_2, "    return 'never'\n", "x"]
    holder: dict[str, Session] = {}

    async def on_chunk(index: int) -> None:
        if index == 4:  # the second block is open: the user presses Esc
            await holder["s"].interrupt()

    channel = ScriptedChannel(chunks, on_chunk=on_chunk)
    session = holder["s"] = _session(repo, channel)
    events = await _collect(session)
    text = (repo / "app.py").read_text()
    assert "or 0" in text and "'shop'" in text and "never" not in text and "store" not in text
    final = events[-1]
    assert isinstance(final, TurnCompleted)
    assert (final.status, final.reason, final.applied, final.dropped_blocks) == (
        "cancelled", "interrupted", 1, 1)
    dropped = [e for e in events if isinstance(e, BlockRejected)]
    assert len(dropped) == 1 and "not applied" in dropped[0].message
    assert not session.streaming


async def test_a_complete_looking_block_cut_without_newline_is_dropped(repo: Path) -> None:
    cut = BLOCK_1.rstrip("\n")  # '>>>>>>> REPLACE' arrived but the line never ended
    channel = ScriptedChannel([cut], finish=TurnFinished("incomplete", "max_output_tokens"))
    events = await _collect(_session(repo, channel))
    assert (repo / "app.py").read_text() == APP
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.status == "incomplete"
    assert final.reason == "max_output_tokens" and final.dropped_blocks == 1
    assert final.applied == 0


async def test_the_same_block_without_newline_applies_when_the_answer_completed(
        repo: Path) -> None:
    events = await _collect(_session(repo, ScriptedChannel([BLOCK_1.rstrip("\n")])))
    assert isinstance(events[-1], TurnCompleted) and events[-1].applied == 1
    assert "or 0" in (repo / "app.py").read_text()


async def test_next_turn_carries_the_partial_answer(repo: Path) -> None:
    holder: dict[str, Session] = {}

    async def on_chunk(index: int) -> None:
        if index == 2:
            await holder["s"].interrupt()

    channel = ScriptedChannel(["I will rename ", "the shop to", " never-sent"], on_chunk=on_chunk)
    session = holder["s"] = _session(repo, channel)
    await _collect(session, "rename the shop")
    channel.on_chunk = None
    channel.stopped.clear()
    channel.chunks = ["Ok, renaming to mall.\n"]
    await _collect(session, "call it mall instead")
    second = channel.requests[1].messages
    assert [m.role for m in second] == ["user", "assistant", "user"]
    assert second[1].content == "I will rename the shop to" + INTERRUPTED_NOTE
    assert "rename the shop" in second[0].content and "app.py" in second[0].content
    assert second[2].content.strip() == "call it mall instead"  # app.py unchanged: not re-sent
    assert session.history[-1].content == "Ok, renaming to mall.\n"


async def test_unchanged_files_are_not_resent_but_changed_ones_are(repo: Path) -> None:
    channel = ScriptedChannel(["nothing to do\n"])
    session = _session(repo, channel)
    await _collect(session)
    await _collect(session)
    assert "def total" in channel.requests[0].messages[-1].content
    assert "def total" not in channel.requests[1].messages[-1].content
    (repo / "app.py").write_text((repo / "app.py").read_text() + "# user note\n")
    await _collect(session)
    assert "# user note" in channel.requests[2].messages[-1].content


async def test_files_changed_after_an_undo_are_sent_again(repo: Path) -> None:
    from spark_cli.session.workspace.changes import undo_last_batch

    channel = ScriptedChannel(["reading\n"])
    session = _session(repo, channel)
    await _collect(session)  # app.py sent as it is
    channel.chunks = _split(BLOCK_1)
    await _collect(session)  # the model edits it (its own edit: it knows the new text)
    assert "or 0" in (repo / "app.py").read_text()
    assert undo_last_batch(repo).status == "undone"  # back to what the first turn sent
    session.files_changed()
    channel.chunks = ["ok\n"]
    await _collect(session)
    # the model's last view has its edit: without the file again it would go on from that
    assert "def total" in channel.requests[2].messages[-1].content


async def test_ttft_and_tokens_per_second_from_usage(repo: Path) -> None:
    async def slow(index: int) -> None:
        await asyncio.sleep(0.01)  # chunks that take time: the rate is finite

    channel = ScriptedChannel(["one ", "two ", "three\n"], usage=UsageReported(50, 120),
                              on_chunk=slow)
    events = await _collect(_session(repo, channel))
    final = events[-1]
    assert isinstance(final, TurnCompleted) and final.output_tokens == 120
    assert final.ttft_s is not None and final.ttft_s > 0
    assert final.tokens_per_s is not None and final.tokens_per_s > 0
    assert final.duration_s >= final.ttft_s
    # two gaps of >= 10 ms between the first and the last delta bound the rate
    assert final.tokens_per_s <= 120 / 0.02 + 1e-6
    assert any(isinstance(e, UsageReported) for e in events)


async def test_tokens_are_counted_when_the_provider_reports_no_usage(repo: Path) -> None:
    answer = "Nothing to change here, the code is fine.\n"
    events = await _collect(_session(repo, ScriptedChannel(_split(answer))))
    assert events[-1].output_tokens == count_tokens(answer)


async def test_refusal_is_reported_and_fed_back_next_turn(repo: Path) -> None:
    bad = "app.py\n<<<<<<< SEARCH\n    return 42\n=======\n    return 0\n>>>>>>> REPLACE\n"
    channel = ScriptedChannel([bad])
    session = _session(repo, channel)
    events = await _collect(session)
    refused = [e for e in events if isinstance(e, EditRefused)]
    assert len(refused) == 1 and refused[0].outcome.path == "app.py"
    assert events[-1].refused == 1 and (repo / "app.py").read_text() == APP
    channel.chunks = ["ok\n"]
    await _collect(session, "try again")
    last = channel.requests[1].messages[-1].content
    assert "NOT applied" in last and refused[0].outcome.message in last
    assert last.rstrip().endswith("try again")
    channel.chunks = ["ok\n"]
    await _collect(session, "third")
    assert "NOT applied" not in channel.requests[2].messages[-1].content


async def test_user_change_mid_stream_is_never_overwritten(repo: Path) -> None:
    def user_edits(index: int) -> None:
        if index == 1:
            (repo / "app.py").write_text(APP.replace("sum(items)", "sum(items, 10)"))

    channel = ScriptedChannel(["Working.\n", BLOCK_1], on_chunk=user_edits)
    events = await _collect(_session(repo, channel))
    assert (repo / "app.py").read_text() == APP.replace("sum(items)", "sum(items, 10)")
    assert any(isinstance(e, EditRefused) for e in events)


async def test_failure_mid_stream_keeps_landed_edits_and_drops_the_open_block(
        repo: Path) -> None:
    chunks = [BLOCK_1, BLOCK_2[:30], "rest"]
    channel = ScriptedChannel(chunks, fail_after=2,
                              fail=ChannelError("connection", "the connection dropped"))
    session = _session(repo, channel)
    events = await _collect(session)
    final = events[-1]
    assert isinstance(final, TurnFailed) and final.kind == "connection"
    assert final.applied == 1 and "dropped" in final.message
    assert "or 0" in (repo / "app.py").read_text() and "'shop'" in (repo / "app.py").read_text()
    assert any(isinstance(e, BlockRejected) for e in events)
    assert session.history[-1].role == "assistant"  # the partial answer is kept


async def test_provider_failed_status_is_a_turn_failure(repo: Path) -> None:
    channel = ScriptedChannel(["x"], finish=TurnFinished("failed", "server_error: overloaded"))
    events = await _collect(_session(repo, channel))
    assert isinstance(events[-1], TurnFailed) and "overloaded" in events[-1].message


async def test_bad_request_fails_before_anything_is_sent(repo: Path) -> None:
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02")
    channel = ScriptedChannel(["never"])
    session = _session(repo, channel)
    events = await _collect(session, files=("blob.bin",))
    assert len(events) == 1 and isinstance(events[0], TurnFailed)
    assert events[0].kind == "binary" and channel.requests == [] and session.history == []


async def test_dry_run_writes_nothing(repo: Path) -> None:
    events = await _collect(_session(repo, ScriptedChannel([BLOCK_1, BLOCK_2]), dry_run=True))
    landed = [e for e in events if isinstance(e, EditLanded)]
    assert len(landed) == 2 and all(e.outcome.dry_run for e in landed)
    assert "+    return sum(items) or 0" in landed[0].outcome.diff
    assert (repo / "app.py").read_text() == APP and history(undo_dir(repo)) == []


async def test_one_turn_at_a_time(repo: Path) -> None:
    gate = asyncio.Event()

    async def wait(index: int) -> None:
        await gate.wait()

    session = _session(repo, ScriptedChannel(["a", "b"], on_chunk=wait))
    first = session.run_turn("one", [])
    await asyncio.wait_for(first.__anext__(), 5)  # the first turn is running
    with pytest.raises(TurnInProgress):
        await session.run_turn("two", []).__anext__()
    gate.set()
    async with asyncio.timeout(5):
        rest = [e async for e in first]
    assert isinstance(rest[-1], TurnCompleted)


async def test_steer_only_where_the_channel_can(repo: Path) -> None:
    session = _session(repo, ScriptedChannel([]))
    assert await session.steer("go left") is False  # no turn running
    gate = asyncio.Event()

    async def wait(index: int) -> None:
        await gate.wait()

    for can, expected in ((False, False), (True, True)):
        channel = ScriptedChannel(["a", "b"], on_chunk=wait, steer=can)
        session = _session(repo, channel)
        turn = session.run_turn("one", [])
        await asyncio.wait_for(turn.__anext__(), 5)  # the turn is running
        assert await session.steer("go left") is expected
        gate.set()
        async with asyncio.timeout(5):
            _ = [e async for e in turn]
        gate.clear()
        assert channel.steered == (["go left"] if can else [])

"""`spark acp` driven over stdio by a client built on the official ACP SDK, in a copy of
examples/repo on the bundled engine: a rename's edits as edit tool calls with their diffs,
session/cancel mid-answer, a command under ask through session/request_permission,
session/load, and bad requests."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest
from acp import RequestError, text_block
from acp_client import EXAMPLE, Editor, child_env, slow_engine, spark_acp
from trusting import trust

FILES = ("src/shop/cart.py", "tests/test_cart.py")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    copy = tmp_path / "repo"
    shutil.copytree(EXAMPLE, copy, ignore=shutil.ignore_patterns("__pycache__", ".spark"))
    (copy / ".git").mkdir()
    return copy


def _texts(repo: Path) -> dict[str, str]:
    return {p.relative_to(repo).as_posix(): p.read_text() for p in sorted(repo.rglob("*"))
            if p.is_file() and ".spark" not in p.parts and ".git" not in p.parts}


async def test_a_rename_across_two_files_lands_as_edit_tool_calls_with_diffs(repo: Path):
    before = _texts(repo)
    editor = Editor()
    async with spark_acp(repo, editor) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        assert session.modes is not None and session.modes.current_mode_id == "ask"
        done = await conn.prompt(session_id=session.session_id,
                                 prompt=[text_block("rename total_price to cart_total")])
    assert done.stop_reason == "end_turn"
    assert "".join(u.content.text for u in editor.of("agent_message_chunk")).strip()
    edits = [u for u in editor.of("tool_call") if u.kind == "edit"]
    assert {Path(e.locations[0].path) for e in edits} == {repo / f for f in FILES}
    assert all(e.status == "completed" and e.content for e in edits)
    diffs = [c for e in edits for c in e.content]
    assert all(c.type == "diff" and Path(c.path).is_absolute() for c in diffs)
    assert all("total_price" in c.old_text and "cart_total" in c.new_text
               and "total_price" not in c.new_text for c in diffs)
    after = _texts(repo)
    expected = {path: text.replace("total_price", "cart_total") if path in FILES else text
                for path, text in before.items()}
    assert after == expected


async def test_cancel_mid_answer_ends_cancelled_and_applies_no_half_block(repo: Path):
    before = _texts(repo)
    editor = Editor()
    with slow_engine(repo.parent, tps=20) as base_url:
        async with spark_acp(repo, editor, "--provider", "mock", "--base-url", base_url) as conn:
            session = await conn.new_session(cwd=str(repo), mcp_servers=[])
            prompt = asyncio.ensure_future(conn.prompt(
                session_id=session.session_id,
                prompt=[text_block("rename total_price to cart_total")]))
            await editor.first_chunk.wait()
            await conn.cancel(session_id=session.session_id)
            done = await prompt
    assert done.stop_reason == "cancelled"
    assert not [u for u in editor.of("tool_call") if u.kind == "edit"]
    assert _texts(repo) == before


async def test_a_command_under_ask_asks_the_editor_and_a_reject_runs_nothing(repo: Path):
    editor = Editor(answer="reject")
    async with spark_acp(repo, editor) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id,
                                 prompt=[text_block("run touch made")])
    assert done.stop_reason == "end_turn"
    (call, options), = editor.asked
    assert call.title == "$ touch made" and call.kind == "execute"
    assert {o.kind for o in options} == {"allow_once", "allow_always", "reject_once"}
    assert not (repo / "made").exists()
    assert [u.status for u in editor.of("tool_call") if u.kind == "execute"] == ["failed"]


async def test_the_tests_run_when_the_editor_allows_them_and_their_output_streams(repo: Path):
    editor = Editor(answer="once")
    async with spark_acp(repo, editor) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        done = await conn.prompt(session_id=session.session_id,
                                 prompt=[text_block("run the tests")])
    assert done.stop_reason == "end_turn"
    assert editor.asked[0][0].title.startswith("$ ")
    finished = [u for u in editor.of("tool_call_update") if u.status == "completed"]
    assert "passed" in finished[-1].content[0].content.text
    answer = "".join(u.content.text for u in editor.of("agent_message_chunk"))
    assert "The tests pass" in answer


async def test_load_replays_the_saved_conversation_and_continues_it(repo: Path):
    async with spark_acp(repo, Editor()) as conn:
        first = await conn.new_session(cwd=str(repo), mcp_servers=[])
        await conn.prompt(session_id=first.session_id,
                          prompt=[text_block("rename total_price to cart_total")])
    editor = Editor()
    async with spark_acp(repo, editor) as conn:
        await conn.load_session(cwd=str(repo), session_id=first.session_id, mcp_servers=[])
        shown = [u.session_update for u in editor.updates]
        assert shown[0] == "user_message_chunk"
        assert editor.updates[0].content.text == "rename total_price to cart_total"
        assert "agent_message_chunk" in shown
        assert [u for u in editor.of("tool_call") if u.kind == "edit"]
        done = await conn.prompt(session_id=first.session_id,
                                 prompt=[text_block("rename cart_total to basket_total")])
    assert done.stop_reason == "end_turn"
    assert "basket_total" in (repo / "tests/test_cart.py").read_text()


async def test_bad_requests_get_specific_errors_and_touch_nothing(repo: Path, tmp_path: Path):
    before = _texts(repo)
    async with spark_acp(repo, Editor()) as conn:
        with pytest.raises(RequestError, match="Invalid params") as bad_cwd:
            await conn.new_session(cwd="relative/path", mcp_servers=[])
        assert "not an absolute path" in str(bad_cwd.value.data)
        with pytest.raises(RequestError) as unknown:
            await conn.prompt(session_id="nope", prompt=[text_block("hello")])
        assert "unknown session" in str(unknown.value.data)
        empty = tmp_path / "empty"
        empty.mkdir()
        with pytest.raises(RequestError, match="Resource not found"):
            await conn.load_session(cwd=str(empty), session_id="x", mcp_servers=[])
        (empty / ".spark").mkdir()
        (empty / ".spark" / "config.toml").write_text("tools = 'maybe'\n")
        trust(empty, child_env(repo.parent))  # the agent's state dir
        with pytest.raises(RequestError, match="Invalid params") as bad_config:
            await conn.new_session(cwd=str(empty), mcp_servers=[])
        assert "config.toml" in str(bad_config.value.data)
    assert _texts(repo) == before


async def test_an_untrusted_project_config_is_ignored_and_the_first_answer_says_so(repo: Path):
    (repo / ".spark").mkdir()
    (repo / ".spark" / "config.toml").write_text('test_command = "touch MARKER"\n')
    editor = Editor()
    async with spark_acp(repo, editor) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        for _ in range(2):
            await conn.prompt(session_id=session.session_id,
                              prompt=[text_block("rename total_price to cart_total")])
    said = "".join(u.content.text for u in editor.of("agent_message_chunk"))
    assert said.startswith("spark: ignoring the project files of ")
    assert ".spark/config.toml" in said and "spark trust" in said
    assert said.count("ignoring the project files") == 1  # once per session


async def test_sessions_are_listed_and_unstable_methods_refused(repo: Path):
    async with spark_acp(repo, Editor()) as conn:
        first = (await conn.new_session(cwd=str(repo), mcp_servers=[])).session_id
        second = (await conn.new_session(cwd=str(repo), mcp_servers=[])).session_id
        listed = await conn.list_sessions(cwd=str(repo))
        assert {s.session_id for s in listed.sessions} == {first, second}
        assert {s.cwd for s in listed.sessions} == {str(repo)}
        assert (await conn.list_sessions(cwd="/elsewhere")).sessions == []
        for unstable in (conn.close_session(session_id=first),
                         conn.fork_session(session_id=first, cwd=str(repo), mcp_servers=[])):
            with pytest.raises(RequestError, match="Method not found"):
                await unstable
        assert len((await conn.list_sessions()).sessions) == 2


async def test_compact_as_a_prompt_folds_the_older_turns_as_a_step(repo: Path):
    editor = Editor()
    async with spark_acp(repo, editor) as conn:
        session = await conn.new_session(cwd=str(repo), mcp_servers=[])
        for path in ("src/shop/cart.py", "src/shop/pricing.py", "web/cart.js"):
            await conn.prompt(session_id=session.session_id, prompt=[text_block(f"explain {path}")])
        done = await conn.prompt(session_id=session.session_id,
                                 prompt=[text_block("/compact the cart")])
        after = await conn.prompt(session_id=session.session_id,
                                  prompt=[text_block("explain web/format.js")])
    assert done.stop_reason == "end_turn" and after.stop_reason == "end_turn"
    steps = [u for u in editor.updates if getattr(u, "tool_call_id", "").startswith("compaction")]
    assert steps[0].title == "Compacting the conversation" and steps[-1].status == "completed"
    assert "compacted 1 turn in" in steps[-1].content[0].content.text

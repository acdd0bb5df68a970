"""The per-repo store: round trips, corrupt and foreign files, write failures, crashes."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk.atomic import is_temp_name
from spark_cli.protocol.channel import Message, ToolCall, ToolOutput
from spark_cli.session.config.state_dir import repo_slug
from spark_cli.session.workspace.store import MAX_PROMPTS, SavedState, SessionStore


def _saved(store: SessionStore, session_id: str | None = None) -> Path:
    """The file a store saves conversation ``session_id`` (default: its own) to."""
    return store.folder / "conversations" / f"{session_id or store.session_id}.json"


def _store(tmp_path: Path, name: str = "repo") -> SessionStore:
    root = tmp_path / name
    root.mkdir(exist_ok=True)
    return SessionStore(root, tmp_path / "state" / name)


def test_nothing_saved_loads_empty_without_creating_anything(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.load() == SavedState()
    assert store.load_conversation() is None
    assert not store.folder.exists() and store.take_problems() == []


def test_draft_queue_and_prompts_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path)
    assert store.save_draft("half a thought\nsecond line") is None
    store.save_queue(["first", "second", "first"])
    for prompt in ["a", "b", "b", "  ", "c", "b"]:
        store.add_prompt(prompt)
    again = SessionStore(store.root, store.folder).load()
    assert again == SavedState("half a thought\nsecond line", ("first", "second", "first"),
                               ("a", "b", "c", "b"), first_run=False)
    files = {p.name: json.loads(p.read_text()) for p in store.folder.iterdir()}
    assert {f["version"] for f in files.values()} == {1}
    assert files["draft.json"]["kind"] == "draft"


def test_saving_the_same_thing_again_writes_nothing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    real_replace = os.replace
    renames: list[str] = []

    def counting(src: str, dst: str) -> None:
        renames.append(Path(dst).name)
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", counting)
    for text in ["a", "a", "ab", "ab", "a"]:
        store.save_draft(text)
    store.save_queue(["x"])
    store.save_queue(("x",))
    assert renames == ["draft.json", "draft.json", "draft.json", "queue.json"]
    (store.folder / "draft.json").unlink()
    assert store.load().draft == ""
    store.save_draft("a")  # after a load, the disk is what counts
    assert store.load().draft == "a"


def test_history_keeps_the_last_500(tmp_path: Path) -> None:
    store = _store(tmp_path)
    for number in range(MAX_PROMPTS + 20):
        store.add_prompt(f"prompt {number}")
    prompts = SessionStore(store.root, store.folder).load().prompts
    assert len(prompts) == MAX_PROMPTS
    assert prompts[0] == "prompt 20" and prompts[-1] == f"prompt {MAX_PROMPTS + 19}"


def test_add_prompt_after_restart_extends_the_saved_history(tmp_path: Path) -> None:
    first = _store(tmp_path)
    first.add_prompt("one")
    second = SessionStore(first.root, first.folder)  # no load() before add_prompt
    second.add_prompt("one")  # a repeat of the saved last one
    second.add_prompt("two")
    assert SessionStore(first.root, first.folder).load().prompts == ("one", "two")


def test_tool_calls_and_outputs_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path)
    history = [Message("user", "where is TAX_RATE?"), Message("assistant", "Looking.\n"),
               ToolCall("call_1", "search", '{"pattern": "TAX_RATE"'),
               ToolOutput("call_1", "error: the arguments are not JSON"),
               Message("assistant", "It is not here.")]
    store.save_conversation(history, provider="engine", model="spark-fast")
    saved = store.load_conversation()
    assert saved is not None and saved.history == tuple(history)
    raw = json.loads(_saved(store).read_text())
    assert raw["messages"][2] == {"type": "tool_call", "call_id": "call_1", "name": "search",
                                  "arguments": '{"pattern": "TAX_RATE"'}


def test_a_broken_tool_entry_sets_the_file_aside(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_conversation([Message("user", "x")], provider="p", model="m")
    path = _saved(store)
    raw = json.loads(path.read_text())
    raw["messages"].append({"type": "tool_output", "call_id": 3})
    path.write_text(json.dumps(raw))
    assert store.load_conversation() is None
    assert any("tool output" in p for p in store.take_problems())


def test_conversation_round_trip(tmp_path: Path) -> None:
    store = _store(tmp_path)
    history = [Message("user", "rename x"), Message("assistant", "done ✓\n```py\n```")]
    store.save_conversation(history, provider="engine", model="spark-fast")
    saved = store.load_conversation()
    assert saved is not None
    assert saved.history == tuple(history)
    assert (saved.provider, saved.model) == ("engine", "spark-fast")
    assert saved.saved_at > 0
    assert store.take_problems() == []


@pytest.mark.parametrize("content, why", [
    (b"{not json", "not valid JSON"),
    (b"\xff\xfe garbage", "not valid JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"version": 2, "kind": "draft", "text": "x"}', "not a version-1 spark draft"),
    (b'{"version": 1, "kind": "queue", "items": []}', "not a version-1 spark draft"),
    (b'{"version": 1, "kind": "draft", "text": 5}', "text must be a string"),
    (b"[" * 100_000, "not valid JSON"),
])
def test_a_corrupt_or_foreign_draft_is_kept_aside_and_reported(
        tmp_path: Path, content: bytes, why: str) -> None:
    store = _store(tmp_path)
    store.save_queue(["kept"])
    (store.folder / "draft.json").write_bytes(content)
    state = store.load()
    assert state.draft == "" and state.queue == ("kept",)
    assert len(state.problems) == 1 and why in state.problems[0]
    assert "draft.json.corrupt" in state.problems[0]
    assert store.take_problems() == []  # load() handed it out already
    assert (store.folder / "draft.json.corrupt").read_bytes() == content
    assert not (store.folder / "draft.json").exists()
    assert store.save_draft("new") is None and store.load() == SavedState("new", ("kept",))


@pytest.mark.parametrize("body", [
    {"provider": "engine", "model": "m", "saved_at": 1.0,
     "messages": [{"role": "wizard", "content": "hi"}]},
    {"provider": "engine", "model": "m", "saved_at": "yesterday", "messages": []},
    {"provider": "engine", "model": None, "saved_at": 1.0, "messages": []},
    {"provider": "engine", "model": "m", "saved_at": 1.0, "messages": ["hi"]},
])
def test_a_bad_conversation_is_none_plus_a_problem(tmp_path: Path, body: dict) -> None:
    store = _store(tmp_path)
    store.folder.mkdir(parents=True)
    path = store.folder / "conversation.json"
    path.write_text(json.dumps({"version": 1, "kind": "conversation", **body}))
    assert store.load_conversation() is None
    problems = store.take_problems()
    assert len(problems) == 1 and "conversation.json" in problems[0]
    assert store.take_problems() == []
    assert (store.folder / "conversation.json.corrupt").exists()


def test_an_unreadable_file_is_a_problem_not_an_error(tmp_path: Path) -> None:
    store = _store(tmp_path)
    (store.folder / "queue.json").mkdir(parents=True)  # a folder where the file should be
    state = store.load()
    assert state.queue == () and "queue.json: cannot be read" in state.problems[0]


def test_a_write_failure_is_reported_once_until_a_write_succeeds(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    store = _store(tmp_path)
    real_replace = os.replace

    def disk_full(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", disk_full)
    line = store.save_draft("a")
    assert line is not None and "No space left on device" in line
    assert store.take_problems() == [line] and store.take_problems() == []
    assert store.save_draft("ab") is None  # once, not on every keystroke
    assert store.save_queue(["q"]) is not None  # another file: its own line
    assert len(store.take_problems()) == 1
    assert [p.name for p in store.folder.iterdir()] == []  # no temp file left behind
    monkeypatch.setattr(os, "replace", real_replace)
    assert store.save_draft("abc") is None
    monkeypatch.setattr(os, "replace", disk_full)
    assert store.save_draft("abcd") is not None  # failing again after a success: reported
    monkeypatch.setattr(os, "replace", real_replace)
    assert store.load().draft == "abc"


def test_a_state_dir_that_cannot_exist_never_raises(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    store = SessionStore(tmp_path, blocker / "state")
    assert store.save_draft("x") is not None
    assert store.add_prompt("p") is not None
    assert store.save_conversation([], provider="p", model="m") is not None
    assert store.add_prompt("q") is None  # reported once; the history lives on in memory
    state = store.load()
    assert (state.draft, state.queue, state.prompts) == ("", (), ())
    assert state.problems and all("Not a directory" in line for line in state.problems)
    assert store.load_conversation() is None


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_state_dir(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_draft("before")
    store.folder.chmod(0o500)
    try:
        assert store.save_draft("after") is not None
        assert store.load().draft == "before"
    finally:
        store.folder.chmod(0o700)


def test_two_repos_do_not_share_state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "base"))
    (tmp_path / "a" / "app").mkdir(parents=True)
    (tmp_path / "b" / "app").mkdir(parents=True)  # the same folder name elsewhere
    one, two = SessionStore(tmp_path / "a" / "app"), SessionStore(tmp_path / "b" / "app")
    assert one.folder != two.folder
    assert one.folder.parent == tmp_path / "base" / "repos"
    assert one.folder.name.startswith("app-")
    one.save_draft("for a")
    two.save_queue(["for b"])
    assert one.load() == SavedState(draft="for a")
    assert two.load() == SavedState(queue=("for b",))


def test_the_slug_follows_the_resolved_path(tmp_path: Path) -> None:
    (tmp_path / "real repo!").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real repo!")
    slug = repo_slug(tmp_path / "real repo!")
    assert slug == repo_slug(tmp_path / "link") and slug.startswith("real_repo-")
    assert repo_slug(Path("/")).startswith("root-")


_CRASH = """
import os, sys
from pathlib import Path
from spark_cli.session.workspace.store import SessionStore
store = SessionStore(Path(sys.argv[1]), Path(sys.argv[2]))
def crash(src, dst):
    os._exit(9)  # killed between writing the temp file and the rename
os.replace = crash
store.save_draft("the new draft that never landed")
"""


def test_a_crash_mid_write_never_breaks_load(tmp_path: Path) -> None:
    store = _store(tmp_path)
    store.save_draft("the old draft")
    done = subprocess.run([sys.executable, "-c", _CRASH, str(store.root), str(store.folder)],
                          check=False, timeout=60)
    assert done.returncode == 9
    temps = [p for p in store.folder.iterdir() if is_temp_name(p.name)]
    assert len(temps) == 1 and "never landed" in temps[0].read_text()
    again = SessionStore(store.root, store.folder)
    assert again.load() == SavedState(draft="the old draft")
    assert not temps[0].exists()  # its writer is gone: swept on load


_TEXT = st.text(st.characters(codec=None, exclude_categories=()), max_size=200)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(draft=_TEXT, queue=st.lists(_TEXT, max_size=5))
def test_any_unicode_draft_and_queue_round_trip(tmp_path: Path, draft: str,
                                                queue: list[str]) -> None:
    store = SessionStore(tmp_path, tmp_path / "state")
    assert store.save_draft(draft) is None and store.save_queue(queue) is None
    state = SessionStore(tmp_path, tmp_path / "state").load()
    assert (state.draft, state.queue, state.problems) == (draft, tuple(queue), ())


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(turns=st.lists(st.tuples(st.sampled_from(["user", "assistant", "system", "developer"]),
                                _TEXT), max_size=6),
       model=_TEXT)
def test_any_conversation_round_trips(tmp_path: Path, turns: list[tuple[str, str]],
                                      model: str) -> None:
    history = [Message(role, content) for role, content in turns]  # type: ignore[arg-type]
    store = SessionStore(tmp_path, tmp_path / "state")
    assert store.save_conversation(history, provider="engine", model=model) is None
    saved = SessionStore(tmp_path, tmp_path / "state").load_conversation()
    assert saved is not None and saved.history == tuple(history) and saved.model == model

"""`spark rewind`: --list (text, JSON), --to N with each scope, refusal and --force, bad
input; `spark --resume` with and without an ID."""

from __future__ import annotations

import json
import stat
import time
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from spark_cli.cli import main, rewind_cmd
from spark_cli.edits.disk.journal import Journal, history
from spark_cli.protocol.channel import Message
from spark_cli.session.config.state_dir import undo_dir
from spark_cli.session.workspace.store import SessionStore, ShownItem
from spark_cli.session.workspace.turns import TurnRecord

ORIGINAL = "def total_price(items):\n    return sum(items)\n"
FIRST = "def cart_total(items):\n    return sum(items)\n"
SECOND = "def cart_total(items):\n    return sum(items) or 0\n"


def _edit(root: Path, label: str, text: str) -> str:
    path = root / "cart.py"
    journal = Journal(root, undo_dir(root))
    batch_id = journal.begin(label)
    journal.record("cart.py", path.read_bytes(), stat.S_IMODE(path.stat().st_mode),
                   text.encode(), 0o644)
    path.write_text(text)
    journal.end()
    return batch_id


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A saved session of three turns: two edits of cart.py, then a command's build."""
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    root = tmp_path / "repo"
    root.mkdir()
    (root / "cart.py").write_text(ORIGINAL)
    turns, history_items, shown = [], [], []
    for text, after, made in (("rename total_price to cart_total", FIRST, ()),
                              ("return 0 when empty", SECOND, ()),
                              ("build it", None, ("dist/cart.whl",))):
        start = time.time()
        batches = (_edit(root, text, after),) if after else ()
        items = (Message("user", f"cart.py…\n{text}"), Message("assistant", "done"))
        turns.append(TurnRecord(text, start, items, batches, ("cart.py",) if after else (),
                                made, len(shown)))
        shown += [ShownItem("prompt", text), ShownItem("answer", "done")]
        history_items += items
    SessionStore(root).save_conversation(history_items, provider="mock", model="spark-rules",
                                         shown=shown, turns=turns)
    return root


def run(*args: str) -> Any:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """spark (test)"""

    rewind_cmd.register(app)
    return CliRunner().invoke(app, ["rewind", *args])


def test_list_numbers_the_messages_newest_first_with_the_files_each_edited(repo: Path) -> None:
    result = run("--list", "--root", str(repo))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split()[0] == "1" and lines[0].endswith("build it")
    assert "changed by commands (not restorable): dist/cart.whl" in lines[1]
    assert lines[2].split()[0] == "2" and lines[2].endswith("return 0 when empty")
    assert lines[3].strip() == "edited: cart.py"
    assert lines[4].endswith("rename total_price to cart_total")


def test_list_as_json(repo: Path) -> None:
    result = run("--json", "--root", str(repo))
    listed = json.loads(result.output)
    assert [(e["n"], e["text"], e["edited"]) for e in listed] == [
        (1, "build it", []), (2, "return 0 when empty", ["cart.py"]),
        (3, "rename total_price to cart_total", ["cart.py"])]
    assert all(e["time"][:4].isdigit() and "T" in e["time"] for e in listed)


def test_to_the_first_message_with_both_gives_the_code_and_the_draft_back(repo: Path) -> None:
    result = run("--to", "3", "--root", str(repo))
    assert result.exit_code == 0, result.output
    assert (repo / "cart.py").read_text() == ORIGINAL
    assert "not restorable (changed by commands): dist/cart.whl" in result.output
    assert result.output.rstrip().endswith("rename total_price to cart_total")
    store = SessionStore(repo)
    assert store.load().draft == "rename total_price to cart_total"
    saved = store.load_conversation()
    assert saved is not None and saved.history == () and saved.turns == () and saved.shown == ()


def test_conversation_only_keeps_the_earlier_turns_and_the_files(repo: Path) -> None:
    result = run("--to", "2", "--scope", "conversation", "--json", "--root", str(repo))
    outcome = json.loads(result.output)
    assert outcome["ok"] and outcome["code"] is None
    assert outcome["conversation"] == {"dropped": 2, "draft": "return 0 when empty"}
    assert (repo / "cart.py").read_text() == SECOND
    saved = SessionStore(repo).load_conversation()
    assert saved is not None and [t.text for t in saved.turns] == [
        "rename total_price to cart_total"]
    assert len(saved.history) == 2 and [i.text for i in saved.shown] == [
        "rename total_price to cart_total", "done"]


def test_a_file_changed_since_is_refused_by_name_then_forced(repo: Path) -> None:
    (repo / "cart.py").write_text("# mine\n")
    result = run("--to", "3", "--json", "--root", str(repo))
    assert result.exit_code == 1
    outcome = json.loads(result.stdout)
    assert not outcome["ok"] and outcome["conversation"] is None
    assert outcome["code"]["refused"] == [
        {"path": "cart.py", "reason": "edited since spark's edit"}]
    assert (repo / "cart.py").read_text() == "# mine\n"
    saved = SessionStore(repo).load_conversation()
    assert saved is not None and len(saved.turns) == 3  # refused: the conversation stays too
    forced = run("--to", "3", "--scope", "code", "--force", "--root", str(repo))
    assert forced.exit_code == 0, forced.output
    assert (repo / "cart.py").read_text() == ORIGINAL
    assert history(undo_dir(repo))[0].label == "rewind to: rename total_price to cart_total"


def test_a_journal_missing_a_copy_fails_clearly(repo: Path) -> None:
    for blob in undo_dir(repo).glob("*/blobs/*"):
        blob.unlink()
    result = run("--to", "3", "--root", str(repo))
    assert result.exit_code == 1
    assert "cannot be read" in result.stderr and "nothing was written" in result.stderr
    assert (repo / "cart.py").read_text() == SECOND


@pytest.mark.parametrize("args, code, said", [
    (("--to", "4"), 2, "no message 4"),
    (("--to", "0"), 2, "no message 0"),
    (("--to", "1", "--scope", "files"), 2, "--scope is code, conversation or both"),
    (("--to", "1", "--list"), 2, "--list or --to N"),
])
def test_bad_input_changes_nothing(repo: Path, args: tuple[str, ...], code: int,
                                   said: str) -> None:
    result = run(*args, "--root", str(repo))
    assert result.exit_code == code and said in result.stderr
    assert (repo / "cart.py").read_text() == SECOND


def test_no_saved_session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPARK_STATE_DIR", str(tmp_path / "state"))
    result = run("--list", "--root", str(tmp_path))
    assert result.exit_code == 1 and "no saved session in this repo" in result.stderr


@pytest.mark.parametrize("argv, resume", [
    ([], None), (["--resume"], ""), (["--resume", "20261207-001500-ab12"], "20261207-001500-ab12"),
    (["--resume", "--root", "."], ""),
])
def test_resume_with_or_without_an_id(monkeypatch: pytest.MonkeyPatch, argv: list[str],
                                      resume: str | None) -> None:
    import spark_cli.cli.tui_cmd as tui_cmd

    seen: list[str | None] = []
    monkeypatch.setattr(tui_cmd, "run_tui", lambda flags, root, resume=None: seen.append(resume)
                        or 0)
    result = CliRunner().invoke(main.register_commands([]), main.bare_resume(argv))
    assert result.exit_code == 0, result.output
    assert seen == [resume]

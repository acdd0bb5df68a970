"""`spark edit` front-end logic with a scripted channel and a minimal stand-in session.

The stand-in implements ``SessionApi`` with the real edit parser, applier and
event types (so files really change) but none of the session's request
building: these tests pin the CLI's own job — rendering, end diff, JSON
schema, exit codes, the pipe's temp dir — whatever state the real session is
in. End-to-end runs live in test_edit_cmd.py.
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from typer.testing import CliRunner

from spark_cli.cli import wiring
from spark_cli.cli.edit import edit_cmd, edit_run
from spark_cli.cli.main import app
from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit, ProseDelta
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.protocol.channel import (
    Capabilities,
    ChannelError,
    Message,
    RequestSent,
    TextDelta,
    TurnFinished,
    TurnRequest,
)
from spark_cli.session.api import SessionApi
from spark_cli.session.events import (
    EditLanded,
    EditRefused,
    SessionEvent,
    TurnCompleted,
    TurnFailed,
)
from spark_cli.session.extensions.hooks import Hooks
from spark_cli.session.marks import TurnMarks

PY = 'def total_price(items):\n    return sum(items)\n'
RENAME = ("Renaming.\napp.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
          "def grand_total(items):\n>>>>>>> REPLACE\nDone.\n")
BROKEN = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
          "    return (sum(items\n>>>>>>> REPLACE\n")


class ScriptedChannel:
    def __init__(self, answer: str, fail: ChannelError | None = None) -> None:
        self.answer, self.fail = answer, fail

    @property
    def capabilities(self) -> Capabilities:
        return Capabilities()

    async def stream(self, request: TurnRequest) -> AsyncIterator[Any]:
        yield RequestSent(at=time.perf_counter())
        for i in range(0, len(self.answer), 7):
            yield TextDelta(self.answer[i:i + 7])
        if self.fail is not None:
            raise self.fail
        yield TurnFinished("completed")

    async def steer(self, text: str) -> None: ...
    async def stop(self) -> None: ...
    async def warm(self, request: TurnRequest | None = None) -> None: ...
    async def aclose(self) -> None: ...


class StandInSession:
    """Parser + applier over the channel's text; yields the real session events."""

    def __init__(self, channel: Any, root: Path, settings: Any, *, dry_run: bool = False,
                 limits: Any = None):
        self.channel, self.root, self.settings, self.dry_run = channel, root, settings, dry_run
        self.marks = TurnMarks()
        self.seen: dict[str, str] = {}
        self.history: list[Message] = []
        self.context_tokens = 0
        self.context = None
        self.streaming = False
        self.prepared = None
        self.hooks = Hooks(root)

    def prepare(self, instruction: str, files: Sequence[str]) -> TurnFailed | None:
        return None

    async def interrupt(self) -> None: ...

    async def warm(self) -> None: ...

    def reset(self) -> None:
        self.history.clear()

    def attach(self, channel: Any) -> None:
        self.channel = channel

    def configure(self, settings: Any) -> None:
        self.settings = settings

    def restore(self, history: Sequence[Message]) -> None:
        self.history[:] = history

    def files_changed(self) -> None:
        self.seen.clear()

    def repo_files(self) -> list[str]:
        return []

    async def steer(self, text: str) -> bool:
        return False

    def start_servers(self) -> None: ...

    def servers_pending(self) -> bool:
        return False

    async def wait_for_servers(self) -> None: ...

    async def close_servers(self) -> None: ...

    def servers_status(self) -> list[str]:
        return []

    def set_approver(self, approver: Any) -> None: ...

    async def run_turn(self, instruction: str,
                       files: Sequence[str]) -> AsyncIterator[SessionEvent]:
        applier = Applier(self.root, dry_run=self.dry_run, seen={})
        applier.begin_batch(instruction)
        parser = EditStreamParser()
        request = TurnRequest("m", (Message("user", instruction),))
        answer: list[str] = []
        try:
            async for event in self.channel.stream(request):
                if isinstance(event, RequestSent):
                    self.marks.request_sent_at = event.at
                    yield event
                if isinstance(event, TextDelta):
                    marks = self.marks
                    marks.last_delta_at = time.perf_counter()
                    marks.first_delta_at = marks.first_delta_at or marks.last_delta_at
                    answer.append(event.text)
                    for item in parser.feed(event.text):
                        yield self._item(item, applier)
        except ChannelError as exc:
            yield TurnFailed(exc.kind, exc.message)
            return
        finally:
            applier.end_batch()
            self.seen = dict(applier.seen or {})
            self.history.append(Message("assistant", "".join(answer)))
        for item in parser.close():
            yield self._item(item, applier)
        ok = sum(o.ok for o in applier.outcomes)
        yield TurnCompleted("completed", None, 0.01, 40, 4000.0, ok,
                            len(applier.outcomes) - ok, 0.02)

    def _item(self, item: Any, applier: Applier) -> SessionEvent:
        if isinstance(item, FileEdit):
            outcome = applier.apply(item)
            return EditLanded(outcome) if isinstance(outcome, EditApplied) else EditRefused(outcome)
        assert isinstance(item, ProseDelta | BlockRejected)
        return item


def test_the_stand_in_is_a_session_api():
    session: SessionApi = StandInSession(None, Path("."), None)  # mypy checks the shape
    assert session.streaming is False


@pytest.fixture
def script(monkeypatch: pytest.MonkeyPatch, tmp_path: Path):
    """Route `spark edit` to a ScriptedChannel with the given answer."""
    state: dict[str, Any] = {"answer": RENAME, "fail": None}

    @contextlib.asynccontextmanager
    async def fake_channel(provider: Any, **_: Any) -> AsyncIterator[ScriptedChannel]:
        yield ScriptedChannel(state["answer"], state["fail"])

    monkeypatch.setattr(wiring, "open_provider_channel", fake_channel)
    monkeypatch.setattr(edit_run, "Session", StandInSession)
    monkeypatch.setattr(edit_cmd, "load", lambda root, flags, **_: SimpleNamespace(
        provider=SimpleNamespace(kind="mock", name="mock", model="m"), idle_timeout=None,
        first_token_timeout=None, edit_format="search_replace", max_output_tokens=8192,
        allow_syntax_errors=False, commands="off", tools=True, best_of=1))
    (tmp_path / "app.py").write_text(PY)
    monkeypatch.chdir(tmp_path)
    return state


def run(args: list[str], stdin: bytes | None = None):
    return CliRunner().invoke(app, ["edit", *args], input=stdin)


def test_applied_edit_prints_prose_line_diff_summary(script, tmp_path: Path):
    result = run(["app.py", "-m", "rename"])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert out.index("Renaming.") < out.index("[+] app.py") < out.index("Done.")
    assert "-def total_price(items):\n+def grand_total(items):" in out
    assert "TTFT 10 ms · 4,000 tok/s · 40 tokens · 1 applied, 0 refused" in out
    assert "grand_total" in (tmp_path / "app.py").read_text()


def test_refused_edit_exits_1_file_untouched(script, tmp_path: Path):
    script["answer"] = BROKEN
    result = run(["app.py", "-m", "break it"])
    assert result.exit_code == 1, result.output
    assert "[x] refused" in result.stdout
    assert (tmp_path / "app.py").read_text() == PY


def test_malformed_block_counts_as_refused(script):
    script["answer"] = "app.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n"
    result = run(["app.py", "-m", "x"])
    assert result.exit_code == 1, result.output
    assert "malformed edit block" in result.stdout


def test_nothing_to_apply_exits_5_no_edit(script, tmp_path: Path):
    script["answer"] = "I would not change anything.\n"
    result = run(["app.py", "-m", "explain"])
    assert result.exit_code == 5
    assert "no edit: the answer was prose only (5 words)" in result.stderr
    assert "0 applied, 0 refused" in result.stdout


def test_provider_failure_exits_3_with_one_line(script, tmp_path: Path):
    script["fail"] = ChannelError("connection", "connection to the provider dropped")
    script["answer"] = "Renaming."
    result = run(["app.py", "-m", "rename"])
    assert result.exit_code == 3
    assert result.stderr.strip() == "spark edit: connection to the provider dropped"
    assert (tmp_path / "app.py").read_text() == PY


def test_context_length_failure_is_a_usage_error(script):
    script["fail"] = ChannelError("context_length", "the request is 200,000 tokens")
    assert run(["app.py", "-m", "x"]).exit_code == 2


def test_dry_run_shows_the_diff_writes_nothing(script, tmp_path: Path):
    result = run(["app.py", "--dry-run", "-m", "rename"])
    assert result.exit_code == 0, result.output
    assert "+def grand_total(items):" in result.stdout
    assert (tmp_path / "app.py").read_text() == PY
    assert not (tmp_path / ".spark").exists()


def test_json_schema(script):
    result = run(["app.py", "--json", "-m", "rename"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[0] == "request_sent" and types[-1] == "summary"
    assert "prose_delta" in types and "edit_applied" in types and "turn_completed" in types
    diff = next(e for e in events if e["type"] == "diff")
    assert diff["path"] == "app.py" and "+def grand_total" in diff["diff"]
    summary = events[-1]
    assert summary["exit_code"] == 0 and summary["applied"] == 1
    marks = summary["marks"]
    assert marks["request_sent_at"] <= marks["first_delta_at"] <= marks["last_delta_at"]
    assert "".join(e["text"] for e in events if e["type"] == "prose_delta") == "Renaming.\nDone.\n"


def test_two_edits_to_one_file_give_one_combined_diff(script, tmp_path: Path):
    second = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
              "    return sum(items) or 0\n>>>>>>> REPLACE\n")
    script["answer"] = RENAME + second
    result = run(["app.py", "--json", "-m", "two"])
    assert result.exit_code == 0, result.output
    diffs = [e for e in map(json.loads, result.stdout.splitlines()) if e["type"] == "diff"]
    assert len(diffs) == 1
    assert sum(line.startswith("@@") for line in diffs[0]["diff"].splitlines()) == 1
    assert "+def grand_total" in diffs[0]["diff"] and "or 0" in diffs[0]["diff"]


# ---- pipe mode through the same flow ----


def test_pipe_applies_in_a_temp_dir_and_prints_the_result(script, tmp_path: Path):
    (tmp_path / "app.py").unlink()
    script["answer"] = RENAME.replace("app.py", "stdin.py")
    result = run(["-m", "rename"], PY.encode())
    assert result.exit_code == 0, result.output
    assert result.stdout == PY.replace("total_price", "grand_total")
    assert "Renaming." in result.stderr and "TTFT" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_pipe_refusal_prints_the_original(script, tmp_path: Path):
    (tmp_path / "app.py").unlink()
    script["answer"] = BROKEN.replace("app.py", "stdin.py")
    result = run(["-m", "break"], PY.encode())
    assert result.exit_code == 1
    assert result.stdout == PY
    assert "original text was written to stdout unchanged" in result.stderr


def test_pipe_provider_failure_prints_the_original(script, tmp_path: Path):
    script["fail"] = ChannelError("timeout", "no data for 10 s")
    script["answer"] = ""
    result = run(["-m", "x"], PY.encode())
    assert result.exit_code == 3
    assert result.stdout == PY
    assert "spark edit: no data for 10 s" in result.stderr


def test_pipe_json_goes_to_stderr(script, tmp_path: Path):
    script["answer"] = RENAME.replace("app.py", "stdin.py")
    result = run(["--json", "-m", "rename"], PY.encode())
    assert result.exit_code == 0
    assert result.stdout == PY.replace("total_price", "grand_total")
    types = [json.loads(line)["type"] for line in result.stderr.splitlines()]
    assert types[-1] == "summary"


def test_pipe_ignores_edits_to_other_files_and_says_so(script, tmp_path: Path):
    (tmp_path / "app.py").unlink()
    other = "other.py\n<<<<<<< SEARCH\n=======\nx = 1\n>>>>>>> REPLACE\n"
    script["answer"] = RENAME.replace("app.py", "stdin.py") + other
    result = run(["-m", "rename"], PY.encode())
    assert result.exit_code == 0, result.output
    assert result.stdout == PY.replace("total_price", "grand_total")
    assert "ignored: edits to other files (other.py)" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_dry_run_gives_one_combined_diff_per_file_like_a_real_run(script, tmp_path: Path):
    second = ("app.py\n<<<<<<< SEARCH\n    return sum(items)\n=======\n"
              "    return sum(items) or 0\n>>>>>>> REPLACE\n")
    script["answer"] = RENAME + second
    result = run(["app.py", "--dry-run", "-m", "two"])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("--- a/app.py") == 1
    assert "+def grand_total(items):" in result.stdout
    assert "+    return sum(items) or 0" in result.stdout  # the second block saw the first
    assert (tmp_path / "app.py").read_text() == PY

"""The TUI's controllers on their own: a session, a list of lines, plain callables; no app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.interaction import Interaction, QueueChanged
from spark_cli.tui.commands.context_files import ContextFiles
from spark_cli.tui.commands.queue_panel import QueuePanel, queue_text
from spark_cli.tui.commands.slash import CATALOG, Commands, help_lines
from spark_cli.tui.commands.test_command import TestRunner
from spark_cli.tui.commands.tool_calls import CallOutputs
from spark_cli.tui.deep.deep_view import DeepController


class _Host:
    def __init__(self) -> None:
        self.did: list[object] = []

    def clear_transcript(self) -> None:
        self.did.append("clear")

    def resume_conversation(self, session_id: str = "") -> None:
        self.did.append("resume")

    def fork_conversation(self) -> tuple[str, str]:
        self.did.append("fork")
        return "old", "new"

    def conversation_rewound(self, index: int, text: str) -> None:
        self.did.append(("rewound", index, text))

    def to_prompt(self, text: str) -> None:
        self.did.append(("prompt", text))

    async def reconfigure(self, flags: dict[str, object]) -> None:
        self.did.append(flags)

    def copy_to_clipboard(self, text: str) -> None:
        self.did.append(("copy", text))

    async def request_quit(self) -> None:
        self.did.append("quit")


class _Tick:
    def stop(self) -> None:
        pass


def _session(tmp_path: Path) -> Session:
    root = tmp_path / "repo"
    root.mkdir(exist_ok=True)
    (root / "app.py").write_text("x = 1\n")
    settings = load_settings(root, {"provider": "mock", "model": "spark-rules"},
                             {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    return Session(None, root, settings)


def _commands(tmp_path: Path, lines: Any, *, busy: bool = False,
              calls: Any = ()) -> tuple[Commands, _Host, list[str]]:
    session = _session(tmp_path)
    sent: list[str] = []
    interaction = Interaction(session, lambda event: None)
    host = _Host()
    tests = TestRunner(session, lines, every=lambda s, f: _Tick(), busy=lambda: busy,
                       submit=sent.append)
    deep = DeepController(session, None, lines, hud=lambda text: None,  # type: ignore[arg-type]
                          files=lambda: (), busy=lambda: busy)
    queue = QueuePanel(interaction, lines, sent.append)
    commands = Commands(session, lines, host, files=ContextFiles(session.root),
                        busy=lambda: busy, tests=tests, deep=deep, queue=queue,
                        calls=CallOutputs(lines, lambda: calls))
    return commands, host, sent


async def test_commands_answer_in_lines_and_ask_the_host(tmp_path: Path, lines: Any) -> None:
    commands, host, _ = _commands(tmp_path, lines)
    await commands.run("/add app.py")
    await commands.run("/files")
    await commands.run("/model spark-lorem")
    await commands.run("/clear")
    await commands.run("/nope")
    await commands.run("/deep")
    await commands.run("/quit")
    await commands.run("/exit")
    assert "added app.py to the context" in lines.text
    assert "files every turn sends: app.py" in lines.text
    assert host.did == [{"model": "spark-lorem"}, "clear", "quit", "quit"]
    assert "unknown command /nope" in lines.text
    assert "the deep track is off" in lines.text


async def test_a_running_turn_blocks_what_would_race_it(tmp_path: Path, lines: Any) -> None:
    commands, host, _ = _commands(tmp_path, lines, busy=True)
    await commands.run("/clear")
    await commands.run("/test")
    assert host.did == []
    assert lines.text.count("a turn is running") == 2


async def test_copy_puts_the_last_answer_or_its_code_on_the_clipboard(tmp_path: Path,
                                                                      lines: Any) -> None:
    from spark_cli.protocol.channel import Message

    commands, host, _ = _commands(tmp_path, lines)
    await commands.run("/copy")
    assert "nothing to copy: no answer yet" in lines.text
    answer = "Run this:\n\n```sh\nmake test\n```\n\nThen:\n```python\nprint(1)\n```\n"
    commands.session.restore([Message("user", "how?"), Message("assistant", answer),
                              Message("user", "thanks")])
    await commands.run("/copy")
    await commands.run("/copy code")
    await commands.run("/copy everything")
    assert host.did == [("copy", answer), ("copy", "print(1)\n")]
    assert "copied the last answer (10 lines)" in lines.text
    assert "copied its last code block (1 line)" in lines.text
    assert "usage: /copy" in lines.text
    commands.session.restore([Message("assistant", "no code here\n")])
    await commands.run("/copy code")
    assert "the last answer has no code block" in lines.text and len(host.did) == 2


async def test_fix_sends_the_last_failure(tmp_path: Path, lines: Any) -> None:
    commands, _, sent = _commands(tmp_path, lines)
    await commands.run("/fix")
    assert "no failing test run" in lines.text
    assert sent == []


def test_help_lists_every_command_with_a_line() -> None:
    text = "\n".join(help_lines())
    assert all(f"/{info.name}" in text and info.summary in text for info in CATALOG)


async def test_the_queue_panel_edits_the_queue(tmp_path: Path, lines: Any) -> None:
    interaction = Interaction(_session(tmp_path), lambda event: None, queue=["a", "b", "c"])
    back: list[str] = []
    panel = QueuePanel(interaction, lines, back.append)
    await panel.command(["up", "3"])
    assert interaction.queue == ["a", "c", "b"]
    await panel.command(["edit", "1"])
    assert back == ["a"] and interaction.queue == ["c", "b"]
    await panel.command(["drop", "9"])
    assert "no queued message 9" in lines.text
    assert queue_text(QueueChanged((), False)) is None
    assert "1. c" in (queue_text(QueueChanged(("c",), True)) or "")


async def test_the_deep_controller_announces_each_state_once(tmp_path: Path,
                                                              lines: Any) -> None:
    from types import SimpleNamespace

    hud: list[str] = []
    deep = DeepController(_session(tmp_path), None, lines, hud=hud.append,  # type: ignore[arg-type]
                          files=lambda: (), busy=lambda: False)
    task = SimpleNamespace(number=1, state="failed", error="boom", change=None, note=None)
    deep.changed(task)  # type: ignore[arg-type]
    deep.changed(task)  # type: ignore[arg-type]
    assert lines.text.count("deep #1 failed") == 1
    assert deep.may_quit()  # nothing runs
    deep.start("anything")
    assert "the deep track is off" in lines.text


async def test_call_shows_what_a_tool_call_gave_the_model(tmp_path: Path, lines: Any) -> None:
    from spark_cli.session.events import ToolCallFinished

    calls = [ToolCallFinished("c1", "search", "{}", "search TAX", True, "1 hit",
                              "src/a.py:1:TAX = 1", 0.4, "search TAX → 1 hit"),
             ToolCallFinished("c2", "read_file", "{}", "read src/a.py", True,
                              "src/a.py 1–50 of 50",
                              "".join(f"{i} line {i}\n" for i in range(1, 51)), 0.2,
                              "read src/a.py 1–50 of 50")]
    commands, _, _ = _commands(tmp_path, lines, calls=calls)
    await commands.run("/call 1")
    await commands.run("/call")
    first, last = (str(block) for block in lines.blocks)
    assert first.startswith("⚙ #1 search TAX") and "src/a.py:1:TAX = 1" in first
    assert last.startswith("⚙ #2 read src/a.py") and "40 line 40" in last
    assert "41 line 41" not in last and last.endswith("… 10 more lines")
    await commands.run("/call 3")
    assert "usage: /call [N] (1 to 2; none: the last)" in lines.text
    (tmp_path / "other").mkdir()
    empty, _, _ = _commands(tmp_path / "other", lines)
    await empty.run("/call")
    assert "no tool calls yet" in lines.text


def test_a_resumed_deep_task_is_named_once(tmp_path: Path, lines: Any,
                                           monkeypatch: Any) -> None:
    from types import SimpleNamespace

    import spark_cli.session.deep.track as deep_package

    task = SimpleNamespace(number=1, state="done", task="add docstrings", error=None, note=None,
                           change=SimpleNamespace(files=[SimpleNamespace(hunks=[1, 2])]),
                           active=False, elapsed=3.0, output_tokens=120)

    class SavedTrack:
        def __init__(self, root: Path, settings: Any, connect: Any, on_change: Any,
                     fast: Any = None) -> None:
            self.on_change, self.problems, self.tasks = on_change, [], [task]

        def resume(self) -> list[Any]:
            self.on_change(task)  # as DeepTrack.resume does for each saved task
            return [task]

    monkeypatch.setattr(deep_package, "DeepTrack", SavedTrack)
    hud: list[str] = []
    deep = DeepController(_session(tmp_path), None, lines, hud=hud.append,  # type: ignore[arg-type]
                          files=lambda: (), busy=lambda: False)
    deep.open(object())  # type: ignore[arg-type]
    assert lines.text.count("deep #1") == 1
    assert "deep #1 from an earlier session (done): add docstrings" in lines.text
    assert hud and "#1 done" in hud[-1]

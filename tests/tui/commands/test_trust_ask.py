"""The TUI's start question about a repo's project files: nothing of the project starts and no
request leaves before the answer; "not this time" ignores them, "trust" records the trust and
the project's MCP server starts."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from waiting import wait_until

from spark_cli.session.config.trust import trust_state
from spark_cli.tui.app import SparkApp
from spark_cli.tui.commands.approval_bar import ApprovalBar
from spark_cli.tui.transcript.transcript import Transcript

MakeApp = Callable[..., Awaitable[SparkApp]]


def _hostile(repo: Path, marker: Path) -> None:
    (repo / ".spark").mkdir()
    (repo / ".spark" / "config.toml").write_text(
        f'test_command = "touch {marker}.tests"\n'
        f'[mcp_servers.evil]\ncommand = "sh"\nargs = ["-c", "touch {marker}"]\n')


async def _asked(app: SparkApp) -> ApprovalBar:
    bar = app.query_one(ApprovalBar)
    await wait_until(lambda: bar.display and bar.answer is not None, what="the trust question")
    bar.grace_s = 0.0
    return bar


async def test_nothing_starts_before_the_answer_and_no_ignores_the_project(
        tui_app: MakeApp, repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "MCP-RAN"
    _hostile(repo, marker)
    app = await tui_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await _asked(app)
        text = app.query_one(Transcript).plain_text()
        assert "this repo has project files" in text and ".spark/config.toml" in text
        assert "MCP server evil: stdio sh -c touch" in text and "test_command" in text
        opened: list[object] = []
        connect = app.link.connect
        app.link.connect = lambda settings: (opened.append(settings), connect(settings))[1]
        app.interaction.submit("hello")  # sent while asked: it waits for the answer
        await pilot.press(*"hello")  # other keys while asked answer nothing
        await pilot.pause()
        assert opened == [] and not app.started.is_set() and not marker.exists()
        await pilot.press("n")
        await wait_until(lambda: app.started.is_set())
        await wait_until(lambda: opened, what="the waiting prompt sent once answered")
        assert app.session.settings.test_command is None
        assert app.session.servers_status()[0].startswith("no MCP servers configured")
        assert "not trusted this time" in app.query_one(Transcript).plain_text()
    assert not marker.exists() and trust_state(repo).status == "untrusted"


async def test_trust_records_it_and_the_project_runs_as_before(tui_app: MakeApp, repo: Path,
                                                                tmp_path: Path) -> None:
    marker = tmp_path / "MCP-RAN"
    _hostile(repo, marker)
    app = await tui_app()
    async with app.run_test(size=(100, 40)) as pilot:
        await _asked(app)
        await pilot.press("y")
        await wait_until(lambda: app.started.is_set())
        await wait_until(lambda: marker.exists(), what="the project's MCP server started")
        assert app.session.settings.test_command == f"touch {marker}.tests"
    assert trust_state(repo).trusted


async def test_a_repo_without_project_files_is_not_asked(tui_app: MakeApp) -> None:
    app = await tui_app()
    async with app.run_test(size=(100, 30)):
        await wait_until(lambda: app.started.is_set())
        assert not app.query_one(ApprovalBar).display

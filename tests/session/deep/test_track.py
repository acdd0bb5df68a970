"""The deep track end to end against the bundled engine on 127.0.0.1:0 (real git and copies)."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from spark_cli.cli.tui_cmd import connect
from spark_cli.engine.core.config import FaultConfig
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.deep.change import Selection
from spark_cli.session.deep.deep_settings import load_deep_settings
from spark_cli.session.deep.task import DeepTask
from spark_cli.session.deep.track import DeepTrack, deep_folder, load_saved
from spark_cli.session.events import TurnCompleted
from spark_cli.session.workspace.changes import undo_last_batch
from tests.session.deep.repos import make_repo, tree

APP = "def load_config(path):\n    return open(path).read()\n"
MAIN = ("from app import load_config\n\n\ndef main():\n    cfg = load_config('x')\n"
        "    return cfg\n" + "".join(f"\n\ndef helper_{n}():\n    return {n}\n" for n in range(6)))
HAS_GIT = shutil.which("git") is not None


class Fixture:
    def __init__(self, tmp_path: Path, engine: Any, *, use_git: bool = True,
                 key: str | None = None, model: str = "spark-rules", **flags: object) -> None:
        self.root = make_repo(tmp_path / "repo", {"app.py": APP, "main.py": MAIN},
                              use_git=use_git and HAS_GIT)
        self.snaps = tmp_path / "snaps"
        self.snaps.mkdir()
        self.env = {"SPARK_CONFIG_DIR": str(tmp_path / "cfg"),
                    "SPARK_API_KEY": key or engine.token}
        self.settings = load_deep_settings(
            self.root, {"deep_model": model, "deep_base_url": engine.url + "/v1", **flags},
            self.env)
        self.seen: list[tuple[int, str]] = []
        self.state = tmp_path / "state"
        self.track = DeepTrack(self.root, self.settings, connect, self._seen,
                               state_dir=self.state, snapshot_dir=self.snaps)

    def _seen(self, task: DeepTask) -> None:
        self.seen.append((task.number, task.state))


@pytest.mark.parametrize("use_git", [True, False])
async def test_a_deep_task_runs_on_a_snapshot_and_its_change_merges(
        tmp_path: Path, engine_factory: Any, use_git: bool) -> None:
    engine = await engine_factory(tps=3000)
    fx = Fixture(tmp_path, engine, use_git=use_git)
    before = tree(fx.root)
    task = fx.track.start("rename load_config to read_config across the package")
    assert (task.number, task.state) == (1, "snapshotting")
    await wait_until(lambda: not task.active)
    assert task.state == "done", task.error
    assert tree(fx.root) == before  # the working tree was never written
    assert list(fx.snaps.iterdir()) == []  # the snapshot is gone
    assert set(task.files) == {"app.py", "main.py"}
    assert isinstance(task.events[-1], TurnCompleted) and task.output_tokens > 0
    assert [s for n, s in fx.seen][:2] == ["snapshotting", "running"] and fx.seen[-1] == (1,
                                                                                          "done")
    assert task.change is not None
    assert [f.path for f in task.change.files] == ["app.py", "main.py"]
    # the user works meanwhile, away from the deep change's lines
    (fx.root / "main.py").write_text(MAIN.replace("return 5", "return 55"))
    report = fx.track.apply(1)
    assert report is not None and report.refused == ()
    assert "read_config" in (fx.root / "app.py").read_text()
    main = (fx.root / "main.py").read_text()
    assert "read_config('x')" in main and "return 55" in main and "load_config" not in main
    assert task.state == "applied"
    assert load_saved(deep_folder(fx.root, fx.state))[0] == []
    assert undo_last_batch(fx.root).status == "undone"
    assert (fx.root / "app.py").read_text() == APP
    assert (fx.root / "main.py").read_text() == MAIN.replace("return 5", "return 55")


async def test_a_conflicting_hunk_is_refused_and_a_restart_offers_the_change_again(
        tmp_path: Path, engine_factory: Any) -> None:
    engine = await engine_factory(tps=3000)
    fx = Fixture(tmp_path, engine)
    task = fx.track.start("rename load_config to read_config")
    await wait_until(lambda: not task.active)
    (fx.root / "main.py").write_text(MAIN.replace("cfg = load_config('x')", "cfg = 1"))
    [restored] = load_saved(deep_folder(fx.root, fx.state))[0]
    assert restored.state == "done" and restored.task == task.task
    assert restored.change == task.change
    review = fx.track.review(1)
    states = {(s.path, s.state) for s in review}
    assert ("main.py", "conflict") in states and ("app.py", "clean") in states
    report = fx.track.apply(1, Selection.of_files("main.py"))
    assert report is not None and report.applied == () and report.batch_id is None
    conflict = [s for s in report.refused if s.state == "conflict"]
    assert conflict and "working-tree lines 5 changed since the snapshot" in conflict[0].detail
    assert "cfg = 1" in (fx.root / "main.py").read_text()
    assert task.state == "done"  # something is left to apply
    assert fx.track.drop(1) and task.state == "dropped"
    assert load_saved(deep_folder(fx.root, fx.state))[0] == []


async def test_the_fast_track_streams_while_a_deep_task_runs(tmp_path: Path,
                                                             engine_factory: Any) -> None:
    slow = await engine_factory(tps=60, ttft_ms=300)
    fast = await engine_factory(tps=5000)
    fx = Fixture(tmp_path, slow)
    task = fx.track.start("rename load_config to read_config")
    await wait_until(lambda: task.state == "running")
    settings = load_settings(fx.root, {"base_url": fast.url + "/v1", "model": "spark-rules"},
                             {**fx.env, "SPARK_API_KEY": fast.token})
    async with connect(settings) as channel:
        session = Session(channel, fx.root, settings)
        events = [e async for e in session.run_turn("rename helper_5 to last_helper",
                                                     ["main.py"])]
    assert isinstance(events[-1], TurnCompleted) and events[-1].applied >= 1  # + references
    assert task.active  # the deep task is still working
    await wait_until(lambda: not task.active)
    assert task.state == "done" and "def last_helper():" in (fx.root / "main.py").read_text()
    report = fx.track.apply(1)  # merges over the fast track's edit
    assert report is not None and report.refused == ()
    main = (fx.root / "main.py").read_text()
    assert "def last_helper():" in main and "read_config('x')" in main


async def test_cancel_stops_the_task_and_removes_its_snapshot(tmp_path: Path,
                                                              engine_factory: Any) -> None:
    engine = await engine_factory(tps=30)
    fx = Fixture(tmp_path, engine, model="spark-lorem", max_output_tokens=5000)
    before = tree(fx.root)
    task = fx.track.start("write a lot about app.py")
    await wait_until(lambda: task.output_tokens > 0)
    assert list(fx.snaps.iterdir())
    assert await fx.track.cancel(1)
    assert task.state == "cancelled" and task.ended_at is not None
    assert list(fx.snaps.iterdir()) == [] and tree(fx.root) == before
    assert not await fx.track.cancel(1) and not await fx.track.cancel(7)


async def test_aclose_cancels_everything_running(tmp_path: Path, engine_factory: Any) -> None:
    engine = await engine_factory(tps=30)
    fx = Fixture(tmp_path, engine, model="spark-lorem", max_output_tokens=5000)
    first, second = fx.track.start("one about app.py"), fx.track.start("two about app.py")
    assert (first.number, second.number) == (1, 2)
    await wait_until(lambda: first.state == second.state == "running")
    assert fx.track.active == [first, second]
    await fx.track.aclose()
    assert fx.track.active == []
    assert {t.state for t in fx.track.tasks} == {"cancelled"}
    assert list(fx.snaps.iterdir()) == []


async def test_a_task_that_fails_mid_way_leaves_the_tree_untouched(tmp_path: Path,
                                                                   engine_factory: Any) -> None:
    engine = await engine_factory(tps=3000, faults=FaultConfig(drop_after_tokens=20))
    fx = Fixture(tmp_path, engine)
    before = tree(fx.root)
    task = fx.track.start("rename load_config to read_config")
    await wait_until(lambda: not task.active)
    assert task.state == "failed" and task.error is not None
    assert task.error.startswith("deep provider 'mock' (spark-rules): ")
    assert "\n" not in task.error
    assert tree(fx.root) == before and list(fx.snaps.iterdir()) == []
    assert task.change is None


async def test_a_refused_key_is_one_line_and_the_fast_track_goes_on(
        tmp_path: Path, engine_factory: Any) -> None:
    engine = await engine_factory(tps=3000)
    fx = Fixture(tmp_path, engine, key="wrong-key")
    task = fx.track.start("rename load_config to read_config")
    await wait_until(lambda: not task.active)
    assert task.state == "failed" and task.error is not None and "\n" not in task.error
    assert "deep provider 'mock'" in task.error and "key" in task.error.lower()
    settings = load_settings(fx.root, {"base_url": engine.url + "/v1", "model": "spark-rules"},
                             {**fx.env, "SPARK_API_KEY": engine.token})
    async with connect(settings) as channel:
        events = [e async for e in Session(channel, fx.root, settings).run_turn(
            "rename load_config to read_config", ["app.py"])]
    assert isinstance(events[-1], TurnCompleted) and events[-1].applied >= 1  # + references


async def test_a_missing_provider_key_fails_at_once_and_an_empty_task_too(
        tmp_path: Path, engine_factory: Any) -> None:
    engine = await engine_factory()
    fx = Fixture(tmp_path, engine)
    settings = load_deep_settings(fx.root, {"deep_provider": "openai"},
                                  {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    track = DeepTrack(fx.root, settings, connect, lambda t: None, state_dir=fx.state,
                      snapshot_dir=fx.snaps)
    task = track.start("migrate the package")
    await wait_until(lambda: not task.active)
    assert task.state == "failed"
    assert task.error == ("deep provider 'openai' needs an API key: set OPENAI_API_KEY "
                          "(or SPARK_API_KEY)")
    empty = track.start("   ")
    assert (empty.number, empty.state) == (2, "failed") and "empty" in (empty.error or "")
    assert list(fx.snaps.iterdir()) == []


async def test_cancel_while_snapshotting_leaves_no_snapshot(tmp_path: Path,
                                                            engine_factory: Any) -> None:
    engine = await engine_factory()
    fx = Fixture(tmp_path, engine)
    task = fx.track.start("rename load_config to read_config")
    assert task.state == "snapshotting"
    assert await fx.track.cancel(1)
    assert task.state == "cancelled"
    assert list(fx.snaps.iterdir()) == []


async def test_context_building_picks_the_files(tmp_path: Path, engine_factory: Any) -> None:
    engine = await engine_factory(tps=3000)
    fx = Fixture(tmp_path, engine)
    task = fx.track.start("rename load_config to read_config", files=["main.py"])
    await wait_until(lambda: not task.active)
    assert task.state == "done", task.error
    # the front end's files first, then what context building adds (the symbol's home)
    assert task.files[0] == "main.py" and "app.py" in task.files
    assert task.change is not None and "app.py" in [f.path for f in task.change.files]

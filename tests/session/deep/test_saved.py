"""Saved deep results: written once done, offered again after a restart, bad files skipped."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.session.config.settings import load_settings
from spark_cli.session.deep.change import file_change
from spark_cli.session.deep.task import DeepChange, DeepTask
from spark_cli.session.deep.track import DeepTrack, deep_folder, forget, load_saved, save_finished


def _done(number: int, started: float) -> DeepTask:
    change = file_change("a.py", "a = 1\n", "a = 2\n")
    assert change is not None
    task = DeepTask(number, f"task {number}", "done", started, started + 5, 321)
    task.change = DeepChange((change,), (("img.png", "binary: not merged"),), "deep #1: x")
    return task


def test_save_load_forget_and_bad_files(tmp_path: Path) -> None:
    folder = tmp_path / "state" / "deep"
    second, first = _done(2, 2000.0), _done(1, 1000.0)
    second.saved_as = save_finished(folder, second)
    first.saved_as = save_finished(folder, first)
    (folder / "junk.json").write_text("{not json")
    (folder / "other.json").write_text(json.dumps({"version": 1, "kind": "draft"}))
    tasks, problems = load_saved(folder)
    assert [(t.task, t.state, t.output_tokens) for t in tasks] == [
        ("task 1", "done", 321), ("task 2", "done", 321)]
    assert tasks[0].change == first.change and tasks[0].saved_as == first.saved_as
    assert len(problems) == 2 and all("not a saved deep task" in p for p in problems)
    assert (folder / "junk.json").exists()  # kept, never deleted
    forget(folder, first.saved_as)
    assert [t.task for t in load_saved(deep_folder(tmp_path, tmp_path / "state"))[0]] == ["task 2"]


async def test_resume_adds_saved_tasks_after_the_current_ones(tmp_path: Path) -> None:
    state = tmp_path / "state"
    save_finished(state / "deep", _done(1, 1000.0))
    settings = load_settings(tmp_path, {}, {"SPARK_CONFIG_DIR": str(tmp_path / "cfg")})
    seen: list[int] = []

    def never(_: object) -> object:
        raise AssertionError("no channel is opened")

    track = DeepTrack(tmp_path, settings, never, lambda t: seen.append(t.number),  # type: ignore[arg-type]
                      state_dir=state)
    track.start("")  # 1: an empty task fails at once
    [restored] = track.resume()
    assert restored.number == 2 and [t.number for t in track.tasks] == [1, 2]
    assert track.resume() == [] and seen == [1, 2]
    (tmp_path / "a.py").write_text("a = 1\n")
    report = track.apply(2)
    assert report is not None and report.applied == (("a.py", 1),)
    assert restored.state == "applied" and load_saved(deep_folder(tmp_path, state))[0] == []

"""A real race on the bundled engine: scratch trees, a dropped candidate, the merge."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
from collections.abc import AsyncIterator
from dataclasses import replace
from pathlib import Path

import pytest
from waiting import holds

from spark_cli.cli import wiring
from spark_cli.engine.core.config import EngineConfig, parse_fault
from spark_cli.engine.serving.engine_thread import run_engine_in_thread
from spark_cli.protocol.channel import Channel
from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.deep.change import file_change
from spark_cli.session.deep.task import DeepChange
from spark_cli.session.race import Candidate, Race, Verdicts
from spark_cli.session.race.deep_judge import deep_pick, prompt

APP = ("def total_price(items):\n    return sum(items)\n\n\n"
       "def main():\n    return total_price([1, 2])\n\n\n"
       "def untouched():\n    return 0\n")
PLANTED = APP.replace("return 0", "return 42  # the user's own change")


def _repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text(APP)
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "start"]):
        subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=root,
                       check=True, capture_output=True)
    return root


def _settings(root: Path, url: str, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(root.parent / "config"))
    return load_settings(root, {"provider": "mock", "base_url": url + "/v1"})


def _connector(urls: list[str]) -> object:
    """Opens the i-th connection on ``urls[i % len]`` (one engine per candidate's slot)."""
    calls = 0

    @contextlib.asynccontextmanager
    async def connect(settings: Settings) -> AsyncIterator[Channel]:
        nonlocal calls
        url, calls = urls[calls % len(urls)], calls + 1
        provider = type(settings.provider)(**{**_fields(settings.provider),
                                              "base_url": url + "/v1"})
        async with wiring.open_provider_channel(provider, max_retries=0) as channel:
            yield channel

    return connect


def _fields(obj: object) -> dict[str, object]:
    import dataclasses  # deferred: only this helper

    return {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)  # type: ignore[arg-type]
            if f.init}


async def test_a_losing_candidate_never_touches_the_users_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        settings = _settings(root, engine.url, monkeypatch)
        planted: list[str] = []

        def heard(cand: Candidate) -> None:  # the user edits while the race streams
            if cand.state == "streaming" and not planted:
                (root / "app.py").write_text(PLANTED)
                planted.append(PLANTED)
            if cand.state in ("done", "stopped", "failed"):
                assert (root / "app.py").read_text() == PLANTED  # no candidate wrote here

        race = Race(root, settings, _connector([engine.url]), 3, notify=heard, seed=7)
        result = await race.run("rename total_price to grand_total", ["app.py"])
    assert planted and result.winner is not None and result.winner.change is not None
    report = result.winner.change.apply(root)
    assert not report.refused
    text = (root / "app.py").read_text()
    assert "grand_total" in text and "total_price" not in text
    assert "return 42  # the user's own change" in text  # survived the merge
    assert {c.state for c in result.candidates} <= {"done", "stopped"}


async def test_a_429_drops_that_candidate_and_the_race_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    refusing = EngineConfig(port=0, faults=parse_fault("429:1"))
    async with run_engine_in_thread(EngineConfig(port=0)) as good, \
            run_engine_in_thread(refusing) as bad:
        settings = _settings(root, good.url, monkeypatch)
        race = Race(root, settings, _connector([good.url, bad.url]), 2, seed=1)
        result = await asyncio.wait_for(race.run("rename total_price to grand_total",
                                                 ["app.py"]), 60)
    dropped = [c for c in result.candidates if c.state == "failed"]
    assert len(dropped) == 1
    assert dropped[0].verdict.startswith("dropped: ") and "rate limit" in dropped[0].verdict
    assert result.winner is not None and result.winner is not dropped[0]
    assert (root / "app.py").read_text() == APP  # nothing merged yet


def test_out_of_range_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    settings = _settings(tmp_path, "http://127.0.0.1:9", monkeypatch)
    for n in (0, 9):
        with pytest.raises(ValueError, match="--best-of must be 1 to 8"):
            Race(tmp_path, settings, _connector([]), n)  # type: ignore[arg-type]


@pytest.mark.parametrize("passes", [True, False])
async def test_one_check_serves_the_same_answer_and_a_passing_one_stops_the_rest(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, passes: bool) -> None:
    root = _repo(tmp_path)
    ran: list[Path] = []

    async def counted(spec: object, snap: object) -> tuple[bool, str]:
        ran.append(snap.root)  # type: ignore[attr-defined]
        return passes, "passed" if passes else "FAILED (exit 1)"

    monkeypatch.setattr("spark_cli.session.race.race.run_check", counted)
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        settings = _settings(root, engine.url, monkeypatch)
        race = Race(root, settings, _connector([engine.url]), 3, check="true", seed=3)
        result = await race.run("rename total_price to grand_total", ["app.py"])
    assert len(ran) == 1  # three equal answers (no slips): one check
    if not passes:  # each shares the one result
        assert result.winner is None
        assert [c.check_note for c in result.candidates] == ["FAILED (exit 1)"] * 3
        return
    assert result.winner is not None and result.winner.verdicts is not None
    assert result.winner.verdicts.order == 1 and result.winner.check_note == "passed"
    assert all(c.state in ("done", "stopped") for c in result.candidates)


async def test_a_check_waits_for_a_slot_behind_better_ranked_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ran: list[object] = []

    async def counted(spec: object, snap: object) -> tuple[bool, str]:
        ran.append(snap)
        return True, "passed"

    monkeypatch.setattr("spark_cli.session.race.race.run_check", counted)
    race = Race(tmp_path, _settings(tmp_path, "http://127.0.0.1:9", monkeypatch),
                _connector([]), 3, check="true")  # type: ignore[arg-type]
    first, second, third = race.candidates
    for cand, text in ((first, "b\n"), (second, "c\n"), (third, "d\n")):
        cand.state, cand.verdicts = "checking", Verdicts(True, True, None, 2, cand.number)
        cand.change = DeepChange((file_change("x.py", "a\n", text),))  # type: ignore[arg-type]
    waiting = asyncio.create_task(race.check_of(third, "third's tree"))  # type: ignore[arg-type]
    await holds(lambda: not ran, 0.2, "the third check waits while two better ones run")
    first.state = "done"
    race._settled[1].set()  # the first failed its check: a slot is free
    assert await waiting == (True, "passed") and ran == ["third's tree"]


async def test_a_winner_hunk_that_conflicts_with_the_users_change_is_refused_by_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    mine = APP.replace("def total_price(items):", "def total_price(items, tax=0):")
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        settings = _settings(root, engine.url, monkeypatch)

        def heard(cand: Candidate) -> None:  # the user edits the very line being renamed
            if cand.state == "streaming":
                (root / "app.py").write_text(mine)

        race = Race(root, settings, _connector([engine.url]), 2, notify=heard, seed=5)
        result = await race.run("rename total_price to grand_total", ["app.py"])
    assert result.winner is not None and result.winner.change is not None
    report = result.winner.change.apply(root)
    assert report.refused and report.refused[0].path == "app.py"
    assert "app.py hunk 1" in report.message and "changed since the snapshot" in report.message
    assert (root / "app.py").read_text() == mine  # nothing of the conflicting hunk landed


async def test_the_deep_brain_names_the_tied_candidate_with_the_smaller_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async with run_engine_in_thread(EngineConfig(port=0, deep_ttft_ms=0)) as engine:
        settings = _settings(tmp_path, engine.url, monkeypatch)
        deep = replace(settings, provider=replace(settings.provider, model="spark-deep"))
        first, second = Candidate(1, None, None), Candidate(2, None, None)
        first.change = DeepChange((file_change("a.py", "x = 1\n", "x = 100000\n"),))
        second.change = DeepChange((file_change("a.py", "x = 1\n", "x = 2\n"),))
        assert "```diff\n--- a/a.py" in prompt("make x bigger", [first, second])
        number, line = await deep_pick(deep, _connector([engine.url]), "make x bigger",
                                       [first, second])  # type: ignore[arg-type]
    assert number == 2 and line.startswith("Candidate 2: the smallest change")


@pytest.mark.parametrize(("n", "checks"), [(1, 1), (2, 0)])
async def test_a_plain_answers_check_runs_whatever_applied(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, n: int, checks: int) -> None:
    root = _repo(tmp_path)
    ran: list[object] = []

    async def counted(spec: object, snap: object) -> tuple[bool, str]:
        ran.append(snap)
        return True, "passed"

    monkeypatch.setattr("spark_cli.session.race.race.run_check", counted)
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        race = Race(root, _settings(root, engine.url, monkeypatch), _connector([engine.url]), n,
                    check="true", seed=2)
        result = await race.run("explain app.py", ["app.py"])  # an answer with no edit
    assert len(ran) == checks  # as `spark edit --test` runs them; a race skips a loser's
    assert result.winner is None and result.candidates[0].verdicts is not None
    assert result.candidates[0].verdicts.why == "no edit"


async def test_with_a_deep_judge_a_tie_runs_to_the_end_and_the_pick_wins(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)
    asked: list[list[int]] = []
    first_done = asyncio.Event()

    async def check_of(self: Race, cand: Candidate, snap: object) -> tuple[bool, str]:
        if cand.verdicts is not None and cand.verdicts.order > 1:
            await first_done.wait()  # still being checked when the first one passes
        return True, "passed"

    def heard(cand: Candidate) -> None:
        if cand.state == "done" and cand.verdicts is not None and cand.verdicts.order == 1:
            first_done.set()

    async def pick(settings: object, connect: object, instruction: str,
                   tied: list[Candidate]) -> tuple[int, str]:
        asked.append(sorted(c.number for c in tied))
        return 2, "Candidate 2: fine"

    monkeypatch.setattr(Race, "check_of", check_of)
    monkeypatch.setattr("spark_cli.session.race.race.deep_pick", pick)
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        settings = _settings(root, engine.url, monkeypatch)
        race = Race(root, settings, _connector([engine.url]), 3, check="true", seed=3,
                    notify=heard, deep=settings)
        result = await race.run("rename total_price to grand_total", ["app.py"])
    assert [c.state for c in result.candidates] == ["done"] * 3  # a tie may still win
    assert asked == [[1, 2, 3]] and result.winner is result.candidates[1]
    assert "the deep model's pick of those with a 4-line diff: Candidate 2: fine" in result.reason


async def test_stopping_the_race_stops_its_deep_tiebreak(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = _repo(tmp_path)

    async def pick(settings: object, connect: object, instruction: str,
                   tied: list[Candidate]) -> tuple[int, str]:
        race.stop()  # Esc or --timeout while the deep model thinks
        await asyncio.Event().wait()
        raise AssertionError("never answers")

    monkeypatch.setattr("spark_cli.session.race.race.deep_pick", pick)
    async with run_engine_in_thread(EngineConfig(port=0)) as engine:
        settings = _settings(root, engine.url, monkeypatch)
        race = Race(root, settings, _connector([engine.url]), 2, seed=4, deep=settings)
        result = await asyncio.wait_for(race.run("rename total_price to grand_total",
                                                 ["app.py"]), 60)
    assert result.winner is not None and result.winner.verdicts is not None
    assert result.winner.verdicts.order == 1
    assert result.reason.endswith("(the deep tiebreak failed: stopped)")

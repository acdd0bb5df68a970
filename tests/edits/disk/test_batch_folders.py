"""batch_folders: which undo-root entries are batches, and which a prune deletes."""

from __future__ import annotations

import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk.batch_folders import batch_names, to_prune


def _never(name: str) -> float | None:
    raise AssertionError(f"read the manifest of {name}")


def test_names_in_different_seconds_need_no_manifest() -> None:
    names = ["20260101T000003-aaaaaa", "20260101T000002-ffffff", "20260101T000001-000000"]
    assert to_prune(names, 3, _never) == []
    assert to_prune(names, 5, _never) == []
    assert to_prune(names, 2, _never) == ["20260101T000001-000000"]
    assert to_prune(names, 1, _never) == names[1:]
    assert to_prune(names, 0, _never) == names


def test_a_second_straddling_the_cut_is_ordered_by_time_then_id() -> None:
    names = ["20260101T000009-000000",
             "20260101T000005-cccccc", "20260101T000005-bbbbbb", "20260101T000005-aaaaaa",
             "20260101T000001-000000"]
    times = {"20260101T000005-cccccc": 5.1, "20260101T000005-bbbbbb": 5.9,
             "20260101T000005-aaaaaa": 5.1}
    asked: list[str] = []

    def time_of(name: str) -> float | None:
        asked.append(name)
        return times[name]

    # history order: ...9, bbbbbb (5.9), cccccc (5.1, larger id), aaaaaa (5.1), ...1
    assert to_prune(names, 2, time_of) == [
        "20260101T000005-cccccc", "20260101T000005-aaaaaa", "20260101T000001-000000"]
    assert sorted(asked) == sorted(times)  # only that second's batches, each once
    asked.clear()
    assert to_prune(names, 3, time_of) == ["20260101T000005-aaaaaa", "20260101T000001-000000"]
    asked.clear()
    assert to_prune(names, 4, _never) == ["20260101T000001-000000"]  # cut between seconds


def test_an_unreadable_batch_goes_first_in_its_second() -> None:
    names = ["20260101T000005-ffffff", "20260101T000005-000000"]
    times = {"20260101T000005-ffffff": None, "20260101T000005-000000": 5.5}
    assert to_prune(names, 1, times.__getitem__) == ["20260101T000005-ffffff"]


SECONDS = st.integers(0, 5)
BATCHES = st.lists(st.tuples(SECONDS, st.floats(0, 0.999), st.integers(0, 3)),
                   max_size=12, unique_by=lambda b: (b[0], b[2]))


@settings(max_examples=300)
@given(BATCHES, st.integers(0, 14))
def test_the_cut_matches_sorting_every_batch_by_time_and_id(batches, keep) -> None:
    """The rule `history` sorts by, applied to every batch, is the oracle (ties in time too)."""
    recorded = {f"20260101T00000{s}-00000{n}": s + f for s, f, n in batches}
    names = sorted(recorded, reverse=True)
    every = sorted(recorded, key=lambda name: (recorded[name], name), reverse=True)
    assert sorted(to_prune(names, keep, recorded.__getitem__)) == sorted(every[keep:])


def test_time_ties_fall_back_to_the_id() -> None:
    names = ["20260101T000005-cccccc", "20260101T000005-bbbbbb", "20260101T000005-aaaaaa"]
    assert to_prune(names, 1, lambda name: 5.5) == names[1:]


def test_only_batch_named_directories_are_listed(tmp_path) -> None:
    for name in ("20260101T000001-abcdef", "20260101T000003-012345", "notes", "20260101T000002"):
        (tmp_path / name).mkdir()
    (tmp_path / "20260101T000004-aaaaaa").write_text("a file, not a batch")
    (tmp_path / "20260101T000005-bbbbbb").symlink_to(tmp_path / "notes")
    (tmp_path / "20260101T000006-ABCDEF").mkdir()  # ids are lower-case hex
    (tmp_path / "2026010\u0661T000007-abcdef").mkdir()  # and ASCII digits
    assert batch_names(tmp_path) == ["20260101T000003-012345", "20260101T000001-abcdef"]


@pytest.mark.parametrize("make", ["missing", "file"])
def test_an_undo_root_that_cannot_be_listed_has_no_batches(tmp_path, make) -> None:
    root = tmp_path / "undo"
    if make == "file":
        root.write_text("")
    assert batch_names(root) == []
    assert not os.path.isdir(root)

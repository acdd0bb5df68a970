"""The one repo walk: a folder with its parents' ignore files, filters, hidden(), cancel."""

from __future__ import annotations

import threading

import pytest

from spark_cli.tools.repo_files import Cancelled, WalkFilter, ignore_rules, walk

TREE = {
    ".gitignore": "*.log\n/top_only.py\n",
    ".git/info/exclude": "local_*\n",
    "a/.gitignore": "gen_*.py\n",
    "a/b/keep.py": "", "a/b/gen_x.py": "", "a/b/run.log": "", "a/b/top_only.py": "",
    "a/b/local_notes.md": "", "top_only.py": "", "a/pic.png": b"\x89PNG",
    "a/big.txt": "x" * 100, "a/build/out.py": "",
}


def test_walking_a_folder_keeps_its_parents_rules(make_repo) -> None:
    root = make_repo(TREE)
    assert walk(root, under="a/b").paths() == ["a/b/keep.py", "a/b/top_only.py"]
    assert walk(root, under="a/b/").paths() == walk(root, under="a/b").paths()


def test_filters(make_repo) -> None:
    root = make_repo(TREE)
    default = walk(root).paths()
    assert default == [".gitignore", "a/.gitignore", "a/b/keep.py", "a/b/top_only.py",
                       "a/big.txt"]
    everything = walk(root, only=WalkFilter(skip_dirs=frozenset(), skip_extensions=frozenset(),
                                            max_bytes=50)).paths()
    assert everything == [".gitignore", "a/.gitignore", "a/b/keep.py", "a/b/top_only.py",
                          "a/build/out.py", "a/pic.png"]


def test_hidden_follows_nested_rules_without_walking(make_repo) -> None:
    rules = ignore_rules(make_repo(TREE))
    assert rules.hidden("a/b/gen_x.py") and rules.hidden("run.log")
    assert rules.hidden("top_only.py") and not rules.hidden("a/b/top_only.py")
    assert rules.hidden("local_x") and not rules.hidden("a/b/keep.py")


def test_a_folder_rule_hides_what_is_below(make_repo) -> None:
    rules = ignore_rules(make_repo({".gitignore": "out/\n", "out/x.py": ""}))
    assert rules.hidden("out", is_dir=True) and rules.hidden("out/x.py")
    assert not rules.hidden("out")  # a file named out would not be


def test_a_set_event_cancels_the_walk(make_repo) -> None:
    root = make_repo(TREE)
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        walk(root, cancel=cancel)

"""The TUI's context set: add / drop / files, with a specific refusal for each bad path."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_cli.session.building.request import build_request
from spark_cli.session.config.settings import load_settings
from spark_cli.session.context.targets import ContextSet


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def run_app():\n    return 1\n")
    (root / "src" / "use.py").write_text("from app import run_app\n\nrun_app()\n")
    (root / ".gitignore").write_text("*.log\n")
    (root / "debug.log").write_text("noise\n")
    (root / "node_modules" / "x").mkdir(parents=True)
    (root / "node_modules" / "x" / "i.js").write_text("x\n")
    (root / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00")
    (root / "latin.txt").write_bytes("café\n".encode("latin-1"))
    (tmp_path / "outside.py").write_text("x = 1\n")
    return root


def test_add_drop_and_list(repo: Path) -> None:
    files = ContextSet(repo)
    assert files.add("src/app.py") is None
    assert files.add("./src/app.py") is None  # twice is fine, listed once
    assert files.add("src/use.py") is None
    assert files.files() == ("src/app.py", "src/use.py")
    assert files.drop("src/app.py") is None and files.files() == ("src/use.py",)
    assert files.drop("src/app.py") == "src/app.py is not in the context (it holds src/use.py)"
    assert files.drop("src/use.py") is None and files.files() == ()


@pytest.mark.parametrize(("path", "message"), [
    ("src/nope.py", "src/nope.py: no such file"),
    ("src", "src is a directory: add the files in it one by one"),
    ("../outside.py", "../outside.py: '..' leads outside the repo root; paths must stay inside it"),
    ("/etc/passwd", "/etc/passwd: absolute paths are refused; use a path relative to the "
                    "repo root"),
    ("debug.log", "debug.log is left out of the context: it is ignored by .gitignore "
                  "(pattern '*.log')"),
    ("node_modules/x/i.js", "node_modules/x/i.js is left out of the context: it is inside "
                            "node_modules/, a vendored or generated folder"),
    ("logo.png", "logo.png is a binary file (it contains NUL bytes); not edited"),
    ("latin.txt", "latin.txt is not UTF-8 text (invalid byte 0xe9 at offset 3); spark edits "
                  "only UTF-8 and UTF-16 files with a BOM"),
    (".git/config", ".git/config: files inside .git/ are never edited"),
])
def test_refusals_say_why(repo: Path, path: str, message: str) -> None:
    files = ContextSet(repo)
    assert files.add(path) == message
    assert files.files() == ()


def test_a_symlink_out_of_the_repo_is_refused(repo: Path) -> None:
    os.symlink(repo.parent / "outside.py", repo / "link.py")
    assert ContextSet(repo).add("link.py") == ("link.py: goes through a symlink (link.py) that "
                                               "leads outside the repo root")


def test_a_turn_sends_the_set_and_what_mentions_its_symbol(repo: Path) -> None:
    files = ContextSet(repo)
    files.add("src/app.py")
    settings = load_settings(repo, {}, {"SPARK_CONFIG_DIR": str(repo / ".none")})
    report = build_request(settings, repo, files.files(), "rename run_app to start_app").context
    assert [(f.path, f.why) for f in report.files] == [("src/app.py", "added"),
                                                        ("src/use.py", "mentions run_app")]
    assert report.window == settings.context_window and 0 < report.used < report.budget

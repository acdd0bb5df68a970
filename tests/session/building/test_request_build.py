"""Building a turn's request: file blocks, hashes, AGENTS.md, the budget, refusals."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_cli.protocol.files import FileBlock, render_file_blocks
from spark_cli.session.building.instructions import system_instructions
from spark_cli.session.building.request import build_request
from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.context.targets import RequestError
from spark_cli.text_digest import text_sha256


def _settings(root: Path, **flags: object) -> Settings:
    return load_settings(root, flags, {"SPARK_CONFIG_DIR": str(root / ".no-user-config")})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "app.py").write_text("def f():\n    return 1\n")
    (tmp_path / "README.md").write_text("# demo\n")
    return tmp_path


def test_files_travel_as_blocks_before_the_instruction(repo: Path) -> None:
    built = build_request(_settings(repo), repo, ["src/app.py", "./README.md"], "rename f")
    content = built.user_message.content
    expected = render_file_blocks([FileBlock("src/app.py", "def f():\n    return 1\n", "python"),
                                   FileBlock("README.md", "# demo\n", "markdown")])
    assert content.startswith(expected) and content.rstrip().endswith("rename f")
    assert built.request.messages == (built.user_message,)
    assert built.request.model == "gpt-5.3-codex-spark"
    assert built.request.max_output_tokens == 8192
    assert [t.path for t in built.targets] == ["src/app.py", "README.md"]
    assert built.targets[0].sha256 == text_sha256("def f():\n    return 1\n")
    assert built.sent == ("src/app.py", "README.md") and built.input_tokens > 0


def test_duplicate_paths_are_sent_once(repo: Path) -> None:
    built = build_request(_settings(repo), repo, ["src/app.py", "src/./app.py"], "x")
    assert built.user_message.content.count("src/app.py") == 1


def test_instructions_follow_the_edit_format(repo: Path) -> None:
    sr = build_request(_settings(repo), repo, [], "hi").request.instructions
    ap = build_request(_settings(repo, edit_format="apply_patch"), repo, [], "hi")
    assert "<<<<<<< SEARCH" in sr and "*** Begin Patch" not in sr
    assert "*** Begin Patch" in ap.request.instructions
    assert "Do not run tests" in sr and "minimal" in sr


def test_agents_md_is_appended(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("Use tabs. Never touch vendor/.\n")
    built = build_request(_settings(repo), repo, ["src/app.py"], "x")
    assert built.request.instructions.endswith("Use tabs. Never touch vendor/.\n")
    assert built.request.instructions.startswith(system_instructions("search_replace"))


def test_unchanged_files_are_not_resent(repo: Path) -> None:
    first = build_request(_settings(repo), repo, ["src/app.py"], "one")
    known = {t.path: t.sha256 for t in first.targets}
    second = build_request(_settings(repo), repo, ["src/app.py"], "two",
                           history=first.request.messages, already_sent=known)
    assert second.sent == () and "def f()" not in second.user_message.content
    assert second.request.messages[0] == first.user_message
    (repo / "src" / "app.py").write_text("def f():\n    return 2\n")
    third = build_request(_settings(repo), repo, ["src/app.py"], "three", already_sent=known)
    assert third.sent == ("src/app.py",) and "return 2" in third.user_message.content


def test_budget_overflow_names_the_biggest_file(repo: Path) -> None:
    (repo / "big.py").write_text("value_number = 12345\n" * 2000)
    settings = _settings(repo, context_window=4000, max_output_tokens=1000, tools=False)
    with pytest.raises(RequestError) as info:
        build_request(settings, repo, ["src/app.py", "big.py"], "x")
    message = info.value.message
    assert info.value.kind == "budget"
    assert message.index("big.py is") < message.index("src/app.py is")
    assert "the window is 4,000 tokens" in message and "at most 3,000" in message
    assert "Nothing was sent" in message


def test_history_counts_against_the_budget(repo: Path) -> None:
    from spark_cli.protocol.channel import Message

    settings = _settings(repo, context_window=3000, max_output_tokens=1000, commands="off")
    history = (Message("user", "word " * 3000), Message("assistant", "done"))
    built = build_request(settings, repo, [], "x", history=history)
    # the one earlier turn does not fit with the new one: it is left out, and said so
    assert built.history == () and built.request.messages == (built.user_message,)
    assert built.context.trimmed[0] == ("the 1 oldest turn of the conversation left out "
                                        "to fit the window")
    assert build_request(settings, repo, [], "x", history=history[-1:]).history is None


@pytest.mark.parametrize(("name", "data", "kind", "words"), [
    ("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary", "binary"),
    ("latin.txt", "café\n".encode("latin-1"), "encoding", "not UTF-8"),
])
def test_binary_and_non_utf8_are_refused(repo: Path, name: str, data: bytes, kind: str,
                                         words: str) -> None:
    (repo / name).write_bytes(data)
    with pytest.raises(RequestError) as info:
        build_request(_settings(repo), repo, ["src/app.py", name], "x")
    assert info.value.kind == kind and words in info.value.message
    assert name in info.value.message and "nothing was sent" in info.value.message


@pytest.mark.parametrize("raw", ["../outside.py", "/etc/passwd", "src/../../x.py"])
def test_paths_outside_the_root_are_refused(repo: Path, raw: str) -> None:
    (repo.parent / "outside.py").write_text("x = 1\n")
    with pytest.raises(RequestError) as info:
        build_request(_settings(repo), repo, [raw], "x")
    assert info.value.kind == "path"


def test_symlink_escape_is_refused(repo: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "secret.py"
    outside.write_text("SECRET = 1\n")
    os.symlink(outside, repo / "link.py")
    with pytest.raises(RequestError) as info:
        build_request(_settings(repo), repo, ["link.py"], "x")
    assert info.value.kind == "path"


def test_missing_file_and_directory(repo: Path) -> None:
    with pytest.raises(RequestError, match="no such file") as info:
        build_request(_settings(repo), repo, ["src/nope.py"], "x")
    assert info.value.kind == "not_found_file"
    with pytest.raises(RequestError, match="is a directory"):
        build_request(_settings(repo), repo, ["src"], "x")

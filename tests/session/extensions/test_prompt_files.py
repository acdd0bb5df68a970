"""Prompt files as slash commands: where they come from, trust, names, front matter, expansion."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.session.actions.approval import ApprovalRequest, Decision
from spark_cli.session.actions.orchestrator import Orchestrator
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.trust import set_trust, trust_state
from spark_cli.session.extensions.prompt_files import (
    expand,
    expand_line,
    find_command,
    front_matter,
    load_commands,
    run_bangs,
)


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    return {"SPARK_CONFIG_DIR": str(tmp_path / "user"), "SPARK_STATE_DIR": str(tmp_path / "st"),
            "HOME": str(tmp_path / "home")}


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_every_folder_names_its_commands_and_the_project_needs_trust(
        tmp_path: Path, env: dict[str, str]) -> None:
    root = tmp_path / "repo"
    _write(root / ".spark/commands/review.md", "---\ndescription: Review it\n"
           "argument-hint: FILE\n---\nReview $1\n")
    _write(root / ".claude/commands/frontend/lint.md", "Lint $ARGUMENTS\n")
    _write(tmp_path / "user/commands/help.md", "mine\n")
    _write(tmp_path / "home/.codex/prompts/draft.md", "Draft\n")
    names = [c.name for c in load_commands(root, {"help"}, env)]
    assert names == ["prompts:draft", "user:help"]  # the repo's files wait for trust
    set_trust(trust_state(root, env), True, env)
    found = {c.name: c for c in load_commands(root, {"help"}, env)}
    assert list(found) == ["frontend:lint", "prompts:draft", "review", "user:help"]
    assert (found["review"].description, found["review"].argument_hint) == ("Review it", "FILE")
    assert found["review"].body == "Review $1\n"


def test_a_broken_front_matter_is_named_and_the_others_still_work(
        tmp_path: Path, env: dict[str, str]) -> None:
    _write(tmp_path / "user/commands/bad.md", "---\ndescription: [oops\n---\nx\n")
    _write(tmp_path / "user/commands/open.md", "---\ndescription: no end\n")
    _write(tmp_path / "user/commands/good.md", "Good $ARGUMENTS\n")
    found = {c.name: c for c in load_commands(tmp_path, (), env)}
    assert found["bad"].problem.startswith("front matter: expected")
    assert found["open"].problem == "front matter: no closing '---' line"
    command, args = find_command("/good a b", found.values()) or (None, "")
    assert command is not None and expand(command, args) == "Good a b\n"
    with pytest.raises(ValueError, match="not a mapping"):
        front_matter("---\n- a\n---\nbody")


def test_arguments_fill_the_body_once_and_are_shell_split(tmp_path: Path,
                                                         env: dict[str, str]) -> None:
    _write(tmp_path / "user/commands/two.md", "A=$1 B=$2 C=$3 all=$ARGUMENTS\n")
    _write(tmp_path / "user/commands/plain.md", "Just do it.\n")
    found = load_commands(tmp_path, (), env)
    two, args = find_command('/two "x y" $1', found) or (None, "")
    assert two is not None
    assert expand(two, args) == 'A=x y B=$1 C= all="x y" $1\n'  # $1 in an argument stays
    plain, args = find_command("/plain src/app.py", found) or (None, "")
    assert plain is not None and expand(plain, args) == "Just do it.\n\nARGUMENTS: src/app.py"
    assert find_command("/nothing", found) is None and find_command("plain", found) is None


def test_the_first_folder_wins_a_name_and_the_other_is_marked(
        tmp_path: Path, env: dict[str, str]) -> None:
    _write(tmp_path / "user/commands/x.md", "user\n")
    _write(tmp_path / "home/.codex/prompts/x.md", "codex\n")
    _write(tmp_path / ".spark/commands/x.md", "project\n")
    set_trust(trust_state(tmp_path, env), True, env)
    found = load_commands(tmp_path, (), env)
    assert [c.problem[:10] for c in found if c.name == "x"] == ["", "not used: "]
    command, _ = find_command("/x", found) or (None, "")
    assert command is not None and command.body == "project\n"


async def test_a_bang_line_runs_through_the_orchestrator(tmp_path: Path,
                                                        env: dict[str, str]) -> None:
    settings = load_settings(tmp_path, {"provider": "mock", "commands": "ask"}, env)
    asked: list[str] = []

    async def approve(request: ApprovalRequest) -> Decision:
        asked.append(request.action)
        return "once"

    text = "Before\n  !`echo hi; echo $SPARK_SECRET_X`  \nnot !`echo inline`\n"
    done = await run_bangs(text, Orchestrator(tmp_path, settings, approve))
    assert asked == ["echo hi; echo $SPARK_SECRET_X"]
    assert done.startswith("Before\n$ echo hi; echo $SPARK_SECRET_X\nexit 0 · ")
    assert "hi\n" in done and done.endswith("\nnot !`echo inline`\n")
    refused = await run_bangs("!`touch made`", Orchestrator(tmp_path, settings))
    assert refused.startswith("[touch made: not run: declined") and not (tmp_path / "made").exists()


async def test_expand_line_is_none_for_a_line_no_file_names(tmp_path: Path,
                                                           env: dict[str, str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    _write(tmp_path / "user/commands/hi.md", "Hello $1\n")
    policy = Orchestrator(tmp_path, load_settings(tmp_path, {"provider": "mock"}, env))
    assert await expand_line("/hi there", tmp_path, policy) == ("Hello there\n", "")
    assert await expand_line("/help", tmp_path, policy) is None
    _write(tmp_path / "user/commands/bad.md", "---\n: : :\n---\nx\n")
    with pytest.raises(ValueError, match=r"^/bad \(.*bad.md\) is broken: front matter"):
        await expand_line("/bad", tmp_path, policy)

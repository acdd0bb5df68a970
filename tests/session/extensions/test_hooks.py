"""Hooks as the user configures them: their tables, what each exit means, and bad hooks
(missing, not executable, binary, flooding, hanging) named, capped and never hanging a turn."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_cli.session.config.trust import set_trust, trust_state
from spark_cli.session.extensions.hooks import CAP_BYTES, Hooks, read_hooks


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "user").mkdir()
    return {**os.environ, "SPARK_CONFIG_DIR": str(tmp_path / "user"),
            "SPARK_STATE_DIR": str(tmp_path / "st")}


def _hooks(tmp_path: Path, env: dict[str, str], toml: str) -> Hooks:
    (tmp_path / "user" / "config.toml").write_text(toml)
    return Hooks(tmp_path, env)


def test_bad_tables_are_named_and_the_good_ones_kept(tmp_path: Path,
                                                    env: dict[str, str]) -> None:
    (tmp_path / "user" / "config.toml").write_text(
        '[[hooks.PreToolUse]]\ncommand = "true"\n[[hooks.Nope]]\ncommand = "true"\n'
        '[[hooks.Stop]]\nmatcher = "("\ncommand = "x"\n[[hooks.Stop]]\ncommand = ""\n'
        '[[hooks.Stop]]\ncommand = "x"\ntimeout_s = 0\n')
    hooks, problems = read_hooks(tmp_path, env)
    assert [(h.event, h.command) for h in hooks] == [("PreToolUse", "true")]
    assert [p.split(": ", 1)[1] for p in problems] == [
        "hooks.Nope[0]: unknown event (known: SessionStart, UserPromptSubmit, PreToolUse, "
        "PostToolUse, Stop)",
        "hooks.Stop[0]: matcher is not a regular expression (missing ), unterminated "
        "subpattern at position 0)",
        'hooks.Stop[1]: needs command = "…" (a shell line)',
        "hooks.Stop[2]: timeout_s must be a positive number of seconds"]


def test_project_hooks_run_only_under_trust(tmp_path: Path, env: dict[str, str]) -> None:
    (tmp_path / ".spark").mkdir()
    (tmp_path / ".spark" / "config.toml").write_text('[[hooks.Stop]]\ncommand = "true"\n')
    assert read_hooks(tmp_path, env)[0] == []
    set_trust(trust_state(tmp_path, env), True, env)
    assert [h.command for h in read_hooks(tmp_path, env)[0]] == ["true"]


async def test_exit_2_and_a_json_decision_block_and_matchers_choose(
        tmp_path: Path, env: dict[str, str]) -> None:
    hooks = _hooks(tmp_path, env, '[[hooks.PreToolUse]]\nmatcher = "run_command|mcp__.*"\n'
                   'command = "echo no >&2; exit 2"\n[[hooks.PreToolUse]]\nmatcher = "search"\n'
                   'command = \'echo {\\"decision\\": \\"block\\", \\"reason\\": \\"json\\"}\'\n')
    assert await hooks.pre("run_command", '{"command": "ls"}') == "no"
    assert await hooks.pre("mcp__time__now", "{}") == "no"
    assert await hooks.pre("search", "{}") == "json"
    assert await hooks.pre("read_file", "{}") is None
    assert await hooks.pre("run_commands", "{}") is None  # the whole name matches


async def test_bad_hooks_are_named_capped_and_the_turn_goes_on(tmp_path: Path,
                                                              env: dict[str, str]) -> None:
    script = tmp_path / "hook.sh"
    script.write_text("#!/bin/sh\necho hi\n")  # not executable
    hooks = _hooks(tmp_path, env, (
        '[[hooks.PostToolUse]]\ncommand = "/no/such/hook.sh"\n'
        f'[[hooks.PostToolUse]]\ncommand = "{script}"\n'
        '[[hooks.PostToolUse]]\ncommand = "printf \'\\\\377\\\\376bin\\\\000\'"\n'
        '[[hooks.PostToolUse]]\ncommand = "yes flood | head -c 5000000"\n'
        '[[hooks.PostToolUse]]\ncommand = "sleep 30"\ntimeout_s = 0.5\n'))
    note = await hooks.post("read_file", "{}", "output")
    assert note.startswith("\n[hook] flood\nflood") and len(note) < CAP_BYTES  # head kept
    assert "\x00" not in note  # the binary output is left out
    warned = [(w.event, w.command, w.reason) for w in hooks.warned]
    assert warned[0][:2] == ("PostToolUse", "/no/such/hook.sh")
    assert warned[0][2].startswith("not found (exit 127): ") and "not found" in warned[0][2]
    assert warned[1][2].startswith("not executable (exit 126): ") and warned[1][1] == str(script)
    assert warned[2][2] == "printed binary output (not UTF-8 text): left out"
    assert warned[3][2] == "flooded stdout (5,000,000 bytes): cut"
    assert warned[4][2] == "timed out after 0.5 s and was killed"
    assert hooks.warned[4].line == "hook PostToolUse 'sleep 30': timed out after 0.5 s and " \
        "was killed"
    status = hooks.lines()
    assert status[-1].endswith("killed: timeout after 0.5 s")
    assert status[0].startswith("PostToolUse *: /no/such/hook.sh (") and "exit 127" in status[0]


async def test_a_failing_prompt_hook_warns_the_user_and_tells_the_model_nothing(
        tmp_path: Path, env: dict[str, str]) -> None:
    hooks = _hooks(tmp_path, env, '[[hooks.UserPromptSubmit]]\n'
                   'command = "echo oops >&2; exit 3"\n')
    assert await hooks.prompt("do it", False) == ("do it", None)
    [warned] = hooks.warned
    assert warned.line == "hook UserPromptSubmit 'echo oops >&2; exit 3': failed (exit 3): oops"


async def test_prompt_hooks_add_context_or_block(tmp_path: Path, env: dict[str, str]) -> None:
    hooks = _hooks(tmp_path, env, '[[hooks.SessionStart]]\ncommand = "echo start"\n'
                   '[[hooks.UserPromptSubmit]]\ncommand = "grep -q secret && exit 2; echo ok"\n')
    assert await hooks.prompt("do it", True) == ("do it\n\nstart\n\nok", None)
    assert await hooks.prompt("do it", False) == ("do it\n\nok", None)
    assert (await hooks.prompt("the secret", False))[1] == "blocked by the hook " \
        "'grep -q secret && exit 2; echo ok'"


async def test_a_hooks_output_is_capped_as_it_is_read(tmp_path: Path) -> None:
    from spark_cli.checks.runner import run_hook

    run, err = await run_hook("yes out | head -c 3000000; yes err | head -c 3000000 >&2",
                              tmp_path, b"{}", timeout=30, env=os.environ, cap_bytes=4096)
    assert run.ended == "exit" and run.exit_code == 0
    assert len(run.head + run.tail) <= 4096 and run.cut_bytes > 2_900_000
    assert len(err) <= 4096 + 20 and err.startswith("err\nerr") and "[… cut …]" in err

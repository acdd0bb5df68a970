"""`spark edit` with the user's hooks and prompt files, end to end: a scripted model in OpenAI's
Chat Completions shape asks for tools; real hook processes see Claude Code's JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.edit.openai_script import Model, chat_model

KEY = "sk-spark-test-0123456789abcdef"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    (root / "app.py").write_text("def one():\n    return 1\n")
    (tmp_path / "user").mkdir()
    return root


def _config(repo: Path, text: str) -> None:
    (repo.parent / "user" / "config.toml").write_text(text)


def _edit(repo: Path, base_url: str, message: str = "run it",
          *flags: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"), SPARK_API_KEY=KEY,
               SPARK_STATE_DIR=str(repo.parent / "state"), HOME=str(repo.parent / "home"),
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    return subprocess.run(
        [sys.executable, "-m", "spark_cli", "edit", "app.py", "-m", message, "--root",
         str(repo), "--provider", "openai-compatible", "--base-url", base_url, "--model", "m",
         "--commands", "ask", *flags],
        cwd=repo, env=env, capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)


def test_a_pre_tool_use_hook_exiting_2_stops_a_command(repo: Path) -> None:
    _config(repo, '[[hooks.PreToolUse]]\nmatcher = "run_command|mcp__.*"\n'
                  'command = "echo \'blocked: no network tools\' >&2; exit 2"\n'
                  '[[hooks.PreToolUse]]\nmatcher = "read_file"\ncommand = "touch read-hook"\n')
    model = Model({"command": "touch made"})
    with chat_model(model) as url:
        done = _edit(repo, url)
    assert not (repo / "made").exists(), done.stderr
    assert not (repo / "read-hook").exists()  # its matcher names another tool
    [output] = model.outputs
    assert output == "blocked by a hook: blocked: no network tools"


def test_a_post_tool_use_hook_gets_the_call_and_its_response(repo: Path) -> None:
    seen = repo.parent / "post.json"
    _config(repo, f'[[hooks.PostToolUse]]\nmatcher = "read_file"\n'
                  f'command = "cat > {seen}; echo checked by the hook"\n')
    model = Model(("read_file", {"path": "app.py"}))
    with chat_model(model) as url:
        done = _edit(repo, url)
    data = json.loads(seen.read_text())
    assert data["hook_event_name"] == "PostToolUse" and data["tool_name"] == "read_file", done
    assert data["tool_input"] == {"path": "app.py"} and data["cwd"] == str(repo.resolve())
    assert "return 1" in data["tool_response"] and data["session_id"]
    assert model.outputs[0].endswith("\n[hook] checked by the hook")


def test_user_prompt_submit_adds_context_or_blocks(repo: Path) -> None:
    _config(repo, '[[hooks.UserPromptSubmit]]\ncommand = "echo the branch is main"\n')
    model = Model()
    with chat_model(model) as url:
        _edit(repo, url, "rename one to two")
    sent = json.dumps(model.requests[0]["messages"])
    assert "rename one to two\\n\\nthe branch is main" in sent
    _config(repo, '[[hooks.UserPromptSubmit]]\ncommand = "exit 1"\n'
                  '[[hooks.UserPromptSubmit]]\ncommand = "echo no secrets here >&2; exit 2"\n')
    blocked = Model()
    with chat_model(blocked) as url:
        done = _edit(repo, url, "rename one to two")
    assert blocked.requests == [] and "no secrets here" in done.stderr
    assert "warning: hook UserPromptSubmit 'exit 1': failed (exit 1)" in done.stderr  # said too


def test_a_prompt_file_expands_in_spark_edit(repo: Path) -> None:
    folder = repo.parent / "user" / "commands"
    folder.mkdir()
    (folder / "review.md").write_text("---\ndescription: Review\n---\nReview @$1 closely.\n")
    (folder / "bad.md").write_text("---\ndescription: [x\n---\n")
    model = Model()
    with chat_model(model) as url:
        _edit(repo, url, "/review app.py")
        broken = _edit(repo, url, "/bad")
    sent = json.dumps(model.requests[0]["messages"])
    assert "Review @app.py closely." in sent and "/review" not in sent
    assert len(model.requests) == 1 and broken.returncode == 2
    assert "/bad" in broken.stderr and "is broken: front matter" in broken.stderr


def test_a_stop_hook_sends_the_model_back_at_most_max_stop_hooks_times(repo: Path) -> None:
    _config(repo, 'max_stop_hooks = 2\n[[hooks.Stop]]\n'
                  'command = "echo the tests still fail >&2; exit 2"\n')
    model = Model()
    with chat_model(model) as url:
        _edit(repo, url, "rename one to two")
    assert len(model.requests) == 3
    assert model.requests[1]["messages"][-1]["content"].endswith("\n\nthe tests still fail\n")


def test_a_skill_is_in_the_instructions_and_read_with_read_file(repo: Path) -> None:
    folder = repo.parent / "home" / ".agents" / "skills" / "deploy"
    folder.mkdir(parents=True)
    skill = folder / "SKILL.md"
    skill.write_text("---\nname: deploy\ndescription: Ship the app to staging\n---\n"
                     "Run make deploy-staging, then check /health.\n")
    (repo.parent / "home" / "secret.txt").write_text("not for the model")
    (repo / ".agents" / "skills" / "lint").mkdir(parents=True)  # the repo's: needs trust
    (repo / ".agents" / "skills" / "lint" / "SKILL.md").write_text(
        "---\nname: lint\ndescription: repo lint\n---\nx\n")
    model = Model(("read_file", {"path": str(skill)}),
                  ("read_file", {"path": str(repo.parent / "home" / "secret.txt")}))
    with chat_model(model) as url:
        _edit(repo, url, "deploy it")
    system = model.requests[0]["messages"][0]["content"]
    assert f"- deploy: Ship the app to staging ({skill})" in system
    assert "repo lint" not in system
    assert "Run make deploy-staging" in model.outputs[0]
    assert "absolute paths are refused" in model.outputs[1]
    attached = Model()
    with chat_model(attached) as url:
        _edit(repo, url, "use $deploy now")
    asked = attached.requests[0]["messages"][-1]["content"]
    assert "use $deploy now\n\nThe skill $deploy" in asked and "deploy-staging" in asked


def test_a_prompt_files_model_is_used_for_its_own_turn_only(repo: Path) -> None:
    folder = repo.parent / "user" / "commands"
    folder.mkdir()
    (folder / "deep.md").write_text("---\nmodel: big-model\n---\nThink hard about $1.\n")
    _config(repo, 'max_stop_hooks = 1\n[[hooks.Stop]]\ncommand = "echo again >&2; exit 2"\n'
            '[[hooks.UserPromptSubmit]]\ncommand = "echo on main"\n')  # the text grows
    model = Model(("read_file", {"path": "app.py"}))
    with chat_model(model) as url:
        done = _edit(repo, url, "/deep app.py")
    assert [r["model"] for r in model.requests] == ["big-model", "big-model", "m"], done
    assert "Think hard about app.py.\\n\\non main" in json.dumps(model.requests[0]["messages"])
    _config(repo, '[pricing."big-model"]\ninput = 1000.0\noutput = 1000.0\n')
    with chat_model(Model()) as url:  # its turn is priced at its model's price
        priced = _edit(repo, url, "/deep app.py", "--output-format", "stream-json")
        unpriced = _edit(repo, url, "think", "--output-format", "stream-json")
    [cost, none] = [json.loads(r.stdout.splitlines()[-1])["total_cost_usd"] for r in (priced,
                                                                                  unpriced)]
    assert cost and cost > 0 and none is None, (priced.stdout, unpriced.stdout)


def test_an_unknown_model_is_the_providers_error(repo: Path) -> None:
    folder = repo.parent / "user" / "commands"
    folder.mkdir()
    (folder / "deep.md").write_text("---\nmodel: no-such-model\n---\nThink.\n")
    model = Model()
    with chat_model(model, known={"m"}) as url:
        done = _edit(repo, url, "/deep")
    assert done.returncode == 3 and "no-such-model" in done.stderr, done.stderr
    assert [r["model"] for r in model.requests] == ["no-such-model"]


def test_hook_warnings_reach_the_user_not_the_model(repo: Path) -> None:
    _config(repo, '[[hooks.PreToolUse]]\ncommand = "echo lint broke >&2; exit 1"\n'
                  '[[hooks.UserPromptSubmit]]\ncommand = "/no/such/hook"\n')
    model = Model(("read_file", {"path": "app.py"}))
    with chat_model(model) as url:
        text = _edit(repo, url)
        as_json = _edit(repo, url, "run it", "--json")
        stream = _edit(repo, url, "run it", "--output-format", "stream-json")
    assert "warning: hook PreToolUse 'echo lint broke >&2; exit 1': failed (exit 1): lint " \
        "broke" in text.stderr.splitlines()
    assert any(line.startswith("warning: hook UserPromptSubmit '/no/such/hook': not found "
                               "(exit 127)") for line in text.stderr.splitlines())
    assert "lint broke" not in model.outputs[0] and "hook" not in json.dumps(model.requests)
    events = [json.loads(line) for line in as_json.stdout.splitlines()]
    warned = [e for e in events if e["type"] == "hook_warning"]
    assert [(w["event"], w["reason"][:18]) for w in warned] == [
        ("UserPromptSubmit", "not found (exit 12"), ("PreToolUse", "failed (exit 1): l")]
    kinds = [e["type"] for e in events]
    assert kinds[:5] == ["hook_warning", "request_sent", "tool_call_started", "hook_warning",
                         "tool_call_finished"]
    lines = [json.loads(line) for line in stream.stdout.splitlines()]
    assert [(x["type"], x["event"]) for x in lines if x.get("subtype") == "hook_warning"] == [
        ("system", "UserPromptSubmit"), ("system", "PreToolUse")]

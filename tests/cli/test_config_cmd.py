"""`spark config`: resolved settings with sources; the key never appears; bad files exit 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from trusting import trust, write_project
from typer.testing import CliRunner

from spark_cli.cli.main import app

KEY = "sk-proj-SECRETabcdefghijklmnopqrstuvwxyz9876"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    user = tmp_path / "user"
    user.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(user))
    for name in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY", "SPARK_PROVIDER",
                 "SPARK_MODEL", "SPARK_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(root)
    return root


def run(args: list[str]):
    return CliRunner().invoke(app, ["config", *args])


def test_text_shows_values_and_sources_and_masks_the_key(repo: Path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    write_project(repo, 'provider = "openai"\nidle_timeout = 4\n')
    result = run([])
    assert result.exit_code == 0, result.output
    assert KEY not in result.output and "SECRET" not in result.output
    assert "sk-…9876" in result.output
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert "project file" in lines["provider"] and "openai" in lines["provider"]
    assert "(env OPENAI_API_KEY)" in lines["api_key"]
    assert "(known model gpt-5.3-codex-spark (openai))" in lines["context_window"]


def test_json_masks_the_key_and_carries_sources(repo: Path, monkeypatch):
    monkeypatch.setenv("SPARK_API_KEY", KEY)
    result = run(["--json", "--provider", "cerebras", "--model", "llama-3.3-70b"])
    assert result.exit_code == 0, result.output
    assert KEY not in result.output
    data = json.loads(result.stdout)
    assert data["settings"]["provider"] == "cerebras"
    assert data["settings"]["api_key"] == "sk-…9876"
    assert data["sources"]["model"] == "flag --model"
    assert data["sources"]["api_key"] == "env SPARK_API_KEY"


def test_missing_key_is_listed_as_a_problem_not_an_error(repo: Path):
    result = run(["--provider", "openai"])
    assert result.exit_code == 0
    assert "problem:" in result.stdout and "OPENAI_API_KEY" in result.stdout


def test_bad_config_file_exits_2_naming_file_and_key(repo: Path):
    path = repo / ".spark" / "config.toml"
    path.write_text("max_output_tokens = 'lots'\n")
    trust(repo)
    result = run([])
    assert result.exit_code == 2
    assert str(path) in result.stderr and "'max_output_tokens' must be an integer" in result.stderr


@pytest.mark.parametrize("as_json", [False, True])
def test_a_password_in_the_base_url_is_masked(repo: Path, as_json: bool):
    result = run(["--provider", "openai-compatible", "--model", "m", "--base-url",
                  "http://u:s3cr3tpass@host:8000/v1", *(["--json"] if as_json else [])])
    assert result.exit_code == 0, result.output
    assert "s3cr3tpass" not in result.output
    assert "http://***@host:8000/v1" in result.output


def test_tools_and_their_budget_show_with_their_source(repo: Path):
    result = run([])
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert lines["tools"].split()[1] == "true" and "(default)" in lines["tools"]
    assert lines["max_tool_calls"].split()[1] == "40"
    write_project(repo, "tools = false\nmax_tool_calls = 12\n")
    result = run([])
    lines = {line.split()[0]: line for line in result.stdout.splitlines() if line.strip()}
    assert lines["tools"].split()[1] == "false" and "project file" in lines["tools"]
    assert lines["max_tool_calls"].split()[1] == "12" and "project file" in lines["max_tool_calls"]
    write_project(repo, "max_tool_calls = 0\n")
    bad = run([])
    assert bad.exit_code == 2 and "'max_tool_calls' must be greater than 0" in bad.output


def test_it_names_the_sandbox_or_how_to_get_one(repo: Path, monkeypatch):
    from spark_cli.checks import sandbox

    write_project(repo,
        'commands = "sandbox"\nallowed_commands = ["pytest", "make test"]\n')
    result = run([])
    assert result.exit_code == 0, result.output
    assert "commands             sandbox" in result.output
    assert "['pytest', 'make test']" in result.output
    found = sandbox.find_sandbox()
    expected = found.name if isinstance(found, sandbox.Sandbox) else found.fix
    assert any(line.startswith("sandbox ") and expected in line
               for line in result.output.splitlines())
    monkeypatch.setattr(sandbox, "find_sandbox",
                        lambda: sandbox.NoSandbox("bwrap is not installed", "install bubblewrap"))
    data = json.loads(run(["--json"]).output)
    assert data["sandbox"] == "none: bwrap is not installed; install bubblewrap"
    assert data["settings"]["commands"] == "sandbox"


def test_a_bad_commands_policy_is_named(repo: Path):
    write_project(repo, 'commands = "yes"\n')
    result = run([])
    assert result.exit_code == 2
    assert "'commands' must be one of ask, sandbox, off, full-access, not 'yes'" in result.output


def test_mcp_servers_are_listed_with_where_each_came_from(repo: Path, tmp_path: Path):
    (tmp_path / "user" / "config.toml").write_text(
        '[mcp_servers.time]\ncommand = "mcp-server-time"\n'
        '[mcp_servers.docs]\nurl = "https://docs.example/mcp"\n')
    write_project(repo,
        '[mcp_servers.time]\ncommand = "uvx"\nargs = ["mcp-server-time"]\n'
        'env = { TZ_TOKEN = "tok-very-secret-1" }\nallowed_tools = ["get_current_time"]\n')
    result = run([])
    assert result.exit_code == 0, result.output
    lines = sorted(line for line in result.stdout.splitlines() if line.startswith("mcp server"))
    assert len(lines) == 2
    assert lines[1].startswith("mcp server           time: stdio uvx mcp-server-time; env "
                               "TZ_TOKEN  ")  # a project's allowed_tools approve nothing
    assert "[mcp_servers.time] 'allowed_tools' ignored" in result.stdout
    assert f"(project file {repo / '.spark' / 'config.toml'})" in lines[1]
    assert "docs: http https://docs.example/mcp" in lines[0] and "(user file " in lines[0]
    assert "tok-very-secret-1" not in result.output
    data = json.loads(run(["--json"]).stdout)
    assert sorted(s["name"] for s in data["mcp_servers"]) == ["docs", "time"]


def test_a_bad_mcp_table_exits_2_naming_file_and_key(repo: Path):
    path = repo / ".spark" / "config.toml"
    path.write_text('[mcp_servers.time]\ncommand = "x"\ntool_timeout_s = "slow"\n')
    trust(repo)
    result = run([])
    assert result.exit_code == 2
    assert str(path) in result.stderr
    assert "[mcp_servers.time]: 'tool_timeout_s' must be a number of seconds" in result.stderr


def test_the_window_of_a_server_spark_does_not_know_is_never_a_default(
        repo: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
        unused_tcp_port: int) -> None:
    """Nothing answers: unknown; learned at an overflow: said with its time and how to
    forget it; --forget-window: unknown again."""
    from spark_cli.session.config.settings import load_settings, with_window
    from spark_cli.session.window.facts import LEARNED_NOW, remember

    monkeypatch.setenv("SPARK_CACHE_DIR", str(tmp_path / "cache"))
    flags = {"provider": "openai-compatible", "model": "smol",
             "base_url": f"http://127.0.0.1:{unused_tcp_port}/v1"}
    args = [f"--{key.replace('_', '-')}={value}" for key, value in flags.items()]

    def window_line() -> str:
        result = run(args)
        assert result.exit_code == 0, result.output
        return next(ln for ln in result.stdout.splitlines() if ln.startswith("context_window"))

    assert "unknown: the server did not answer" in window_line()
    assert "128000" not in window_line()
    remember(with_window(load_settings(repo, flags), 2048, LEARNED_NOW))
    learned = window_line()
    assert "learned 2048 at the overflow of " in learned
    assert "spark config --forget-window" in learned
    assert "unknown" in next(ln for ln in run([*args, "--forget-window"]).stdout.splitlines()
                             if ln.startswith("context_window"))
    assert "unknown" in window_line()

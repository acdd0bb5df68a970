"""Trust per repo and per content (`session.config.trust`), and the keys a project file may
never set, trusted or not (`layers.USER_ONLY`, `mcp.config.USER_ONLY`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from trusting import state_env, trust

from spark_cli.mcp.mcp_config import read_servers
from spark_cli.session.config.layers import config_files
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.trust import project_files, set_trust, store_path, trust_state
from spark_cli.session.deep.deep_settings import load_deep_settings


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "user").mkdir()
    return state_env(SPARK_CONFIG_DIR=str(tmp_path / "user"),
                     SPARK_STATE_DIR=str(tmp_path / "state"))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    (tmp_path / "repo").mkdir()
    return tmp_path / "repo"


def _project(repo: Path, text: str) -> Path:
    path = repo / ".spark" / "config.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(text)
    return path


def test_no_project_files_is_nothing_to_trust(repo: Path, env: dict[str, str]) -> None:
    assert trust_state(repo, env).status == "none" and not trust_state(repo, env).asks
    (repo / ".spark").mkdir()  # a folder alone is not a project file
    assert project_files(repo) == []


def test_project_files_cover_config_commands_and_skills(repo: Path) -> None:
    _project(repo, "")
    for rel in (".claude/commands/fix.md", ".agents/skills/x/SKILL.md", ".spark/hooks/pre.sh"):
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text("x")
    assert project_files(repo) == [".agents/skills/x/SKILL.md", ".claude/commands/fix.md",
                                   ".spark/config.toml", ".spark/hooks/pre.sh"]


def test_an_untrusted_project_file_is_not_read(repo: Path, env: dict[str, str]) -> None:
    _project(repo, 'model = "from-project"\ntest_command = "touch x"\n')
    state = trust_state(repo, env)
    assert state.status == "untrusted" and state.asks
    assert [label for label, _ in config_files(repo, env)] == []
    s = load_settings(repo, {}, env)
    assert s.provider.model != "from-project" and s.test_command is None
    assert s.trust is not None and "spark trust" in s.trust.line()


def test_trust_is_per_content_a_change_asks_again(repo: Path, env: dict[str, str]) -> None:
    path = _project(repo, 'model = "one"\n')
    trust(repo, env)
    assert trust_state(repo, env).trusted and load_settings(repo, {}, env).provider.model == "one"
    path.write_text('model = "two"\n')
    assert trust_state(repo, env).status == "changed"
    assert load_settings(repo, {}, env).provider.model != "two"
    trust(repo, env)
    (repo / ".claude" / "commands").mkdir(parents=True)
    (repo / ".claude" / "commands" / "new.md").write_text("a new command asks again too")
    assert trust_state(repo, env).status == "changed"


def test_trust_is_per_repo_real_path(tmp_path: Path, repo: Path, env: dict[str, str]) -> None:
    _project(repo, 'model = "m"\n')
    trust(repo, env)
    (tmp_path / "link").symlink_to(repo)
    assert trust_state(tmp_path / "link", env).trusted  # the same repo by its real path
    other = tmp_path / "other"
    other.mkdir()
    _project(other, 'model = "m"\n')  # same bytes, another repo: not trusted
    assert trust_state(other, env).status == "untrusted"
    set_trust(trust_state(repo, env), False, env)
    assert trust_state(repo, env).status == "untrusted"


@pytest.mark.parametrize("content", ["{not json", '{"repos": []}', "[1, 2]"])
def test_a_corrupt_store_is_untrusted_said_and_never_rewritten(repo: Path, env: dict[str, str],
                                                              content: str) -> None:
    _project(repo, 'model = "m"\n')
    store = store_path(env)
    store.parent.mkdir(parents=True)
    store.write_text(content)
    state = trust_state(repo, env)
    assert state.status == "untrusted" and str(store) in state.problem
    assert str(store) in state.line()
    with pytest.raises(ValueError, match="trust store"):
        set_trust(state, True, env)
    assert store.read_text() == content  # nothing lost


@pytest.mark.parametrize(("text", "key"), [
    ('base_url = "http://127.0.0.1:9/v1"\n', "'base_url'"),
    ('kind = "chat_sse"\n', "'kind'"),
    ('api_key_env = "AWS_SECRET_ACCESS_KEY"\n', "'api_key_env'"),
    ('[providers.openai]\nbase_url = "http://127.0.0.1:9/v1"\n', "'providers.openai.base_url'"),
    ('[providers.openai]\napi_key_env = "AWS_SECRET"\n', "'providers.openai.api_key_env'"),
    ('[providers.openai]\nkind = "chat_sse"\n', "'providers.openai.kind'"),
    ("allow_unsandboxed = true\n", "'allow_unsandboxed'"),
    ('command_env = ["AWS_SECRET"]\n', "'command_env'"),
    ('sandbox_deny_read = []\n', "'sandbox_deny_read'"),
    ('commands = "full-access"\n', "'commands = 'full-access''"),
])
def test_a_trusted_project_never_sets_a_user_only_key(repo: Path, env: dict[str, str],
                                                      text: str, key: str) -> None:
    _project(repo, 'provider = "openai"\nmodel = "gpt-x"\n' + text)
    trust(repo, env)
    s = load_settings(repo, {}, {**env, "AWS_SECRET_ACCESS_KEY": "aws-1", "AWS_SECRET": "aws-2"},
                      check=False)
    p = s.provider
    assert (p.base_url, p.kind, p.key_env) == ("https://api.openai.com/v1", "responses_ws",
                                              "OPENAI_API_KEY")
    assert s.commands != "full-access" and p.model == "gpt-x"  # the model may come from it
    [line] = s.ignored
    assert key in line and "user config" in line and str(repo) in line


def test_the_user_config_still_sets_them(repo: Path, env: dict[str, str]) -> None:
    Path(env["SPARK_CONFIG_DIR"], "config.toml").write_text(
        '[providers.openai]\nbase_url = "http://127.0.0.1:9/v1"\napi_key_env = "TEAM"\n')
    s = load_settings(repo, {"provider": "openai"}, {**env, "TEAM": "t" * 20})
    assert (s.provider.base_url, s.provider.api_key, s.ignored) == (
        "http://127.0.0.1:9/v1", "t" * 20, ())


def test_a_project_deep_table_never_sets_where_requests_go(repo: Path,
                                                           env: dict[str, str]) -> None:
    _project(repo, '[deep]\nprovider = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n')
    trust(repo, env)
    deep = load_deep_settings(repo, {}, env)
    assert deep.provider.name == "openai" and deep.provider.base_url != "http://127.0.0.1:9/v1"
    assert any("'deep.base_url' ignored" in line for line in deep.ignored)


def test_a_project_mcp_server_keeps_neither_bearer_nor_allowed_tools_nor_variables(
        repo: Path, env: dict[str, str]) -> None:
    text = ('[mcp_servers.web]\nurl = "https://mcp.example/x"\n'
            'bearer_token_env_var = "AWS_SECRET"\nallowed_tools = ["delete_all"]\n'
            '[mcp_servers.local]\ncommand = "srv"\n'
            'env = { A = "$AWS_SECRET", B = "${HOME}", C = "plain" }\n')
    path = _project(repo, text)
    web, local = read_servers([("project file", path)])
    assert (web.bearer_token_env_var, web.allowed_tools) == ("", ())
    assert local.env == {"C": "plain"}
    assert len(web.ignored) == 2 and len(local.ignored) == 2
    assert all("user config" in line for line in (*web.ignored, *local.ignored))
    user = Path(env["SPARK_CONFIG_DIR"], "config.toml")
    user.write_text(text)
    web, local = read_servers([("user file", user)])  # the user's own: kept as written
    assert (web.bearer_token_env_var, web.allowed_tools) == ("AWS_SECRET", ("delete_all",))
    assert local.env["A"] == "$AWS_SECRET" and not web.ignored
    trust(repo, env)
    assert any("bearer_token_env_var" in line for line in load_settings(repo, {}, env).ignored)


def test_the_trust_check_reads_the_store_once_per_change(repo: Path, env: dict[str, str],
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    _project(repo, 'model = "m"\n')
    trust(repo, env)
    reads: list[str] = []
    real = Path.read_text
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: (reads.append(str(self)),
                                                                   real(self, *a, **k))[1])
    for _ in range(5):
        assert trust_state(repo, env).trusted
    assert reads == [str(store_path(env))]  # once: then remembered, nothing changed on disk
    assert os.path.realpath(repo) == trust_state(repo, env).root

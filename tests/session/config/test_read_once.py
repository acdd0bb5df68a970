"""A process reads each config file once (issue 41 item 2): the settings, trust, the hooks,
the MCP servers and the deep track share one read, counted here through ``Path.read_bytes``;
a changed file is read again."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import pytest
from trusting import trust

from spark_cli.cli.edit.edit_settings import load
from spark_cli.session.conversation import Session
from spark_cli.session.deep.deep_settings import load_deep_settings

USER = ('model = "spark-lorem"\n[deep]\nmodel = "spark-deep"\n'
        '[[hooks.UserPromptSubmit]]\ncommand = "true"\n')
PROJECT = ('tools = true\n[mcp_servers.docs]\ncommand = "no-such-mcp-server"\n'
           'startup_timeout_s = 1\n')


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    counted: Counter[str] = Counter()
    real = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        if self.name == "config.toml":
            counted[str(self)] += 1
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", read_bytes)
    return counted


def _repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path, Path]:
    user = tmp_path / "user" / "config.toml"
    user.parent.mkdir()
    user.write_text(USER)
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(user.parent))
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    (root / "app.py").write_text("def f():\n    return 1\n")
    project = root / ".spark" / "config.toml"
    project.write_text(PROJECT)
    trust(root)
    return root, user, project


async def test_a_session_reads_each_config_file_once(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     reads: Counter[str]) -> None:
    root, user, project = _repo(tmp_path, monkeypatch)
    settings = load(root, {}, warn=True)  # what the TUI and `spark edit` start with
    deep = load_deep_settings(root, {}, os.environ)
    session = Session(None, root, settings)
    assert session.prepare("explain app.py", ["app.py"]) is None  # hooks, MCP servers
    await session.submit("explain app.py")  # the prompt hook runs
    await session.close_servers()
    assert settings.provider.model == "spark-lorem" and deep.provider.model == "spark-deep"
    assert session.hooks.has("UserPromptSubmit") and session.servers.hub() is not None
    assert reads == {str(user): 1, str(project): 1}


def test_a_changed_config_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             reads: Counter[str]) -> None:
    root, user, _ = _repo(tmp_path, monkeypatch)
    assert load(root, {}).provider.model == "spark-lorem"
    user.write_text(USER.replace("spark-lorem", "spark-rules"))
    assert load(root, {}).provider.model == "spark-rules"
    assert reads[str(user)] == 2

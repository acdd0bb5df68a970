"""``[mcp_servers.NAME]`` tables: both kinds, where each came from, and every bad value named."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.mcp.mcp_config import McpConfigError, read_servers


def servers_of(tmp_path: Path, user: str, project: str = ""):
    files = []
    for label, text in (("user file", user), ("project file", project)):
        path = tmp_path / f"{label.split()[0]}.toml"
        path.write_text(text)
        files.append((label, path))
    return read_servers(files)


def test_stdio_and_http_servers_with_defaults_and_sources(tmp_path: Path) -> None:
    time, docs = servers_of(tmp_path, """
[mcp_servers.time]
command = "mcp-server-time"
args = ["--local-timezone", "UTC"]
env = { A = "1" }
cwd = "tools"
startup_timeout_s = 3
allowed_tools = ["get_current_time"]
[mcp_servers.docs]
url = "https://docs.example/mcp"
headers = { X-Team = "t" }
bearer_token_env_var = "DOCS_TOKEN"
enabled = false
tool_timeout_s = 2.5
""")
    assert (time.command, time.args, time.env, time.cwd) == (
        "mcp-server-time", ("--local-timezone", "UTC"), {"A": "1"}, "tools")
    assert (time.startup_timeout_s, time.tool_timeout_s, time.enabled) == (3, 60.0, True)
    assert time.allowed_tools == ("get_current_time",)
    assert time.source == f"user file {tmp_path / 'user.toml'}"
    assert (docs.url, docs.headers, docs.bearer_token_env_var) == (
        "https://docs.example/mcp", {"X-Team": "t"}, "DOCS_TOKEN")
    assert not docs.enabled and docs.tool_timeout_s == 2.5


def test_the_project_replaces_a_user_server_of_the_same_name(tmp_path: Path) -> None:
    (only,) = servers_of(tmp_path, '[mcp_servers.t]\ncommand = "a"\nargs = ["x"]\n',
                         '[mcp_servers.t]\ncommand = "b"\n')
    assert (only.command, only.args) == ("b", ())
    assert only.source.startswith("project file ")


def test_no_table_and_missing_files_are_no_servers(tmp_path: Path) -> None:
    assert servers_of(tmp_path, 'model = "m"\n') == ()
    assert read_servers([("user file", tmp_path / "missing.toml")]) == ()


@pytest.mark.parametrize(("table", "expected"), [
    ('[mcp_servers.t]\nargs = ["x"]\n', "give 'command' (stdio) or 'url'"),
    ('[mcp_servers.t]\ncommand = "a"\nurl = "http://h"\n', "not both or neither"),
    ('[mcp_servers.t]\ncommand = "a"\nheaders = { A = "b" }\n',
     "'headers' does not go with 'command'"),
    ('[mcp_servers.t]\nurl = "http://h"\nenv = { A = "b" }\n', "'env' does not go with 'url'"),
    ('[mcp_servers.t]\ncommand = "a"\ncomand = "b"\n', "unknown key 'comand' (known: command,"),
    ('[mcp_servers.t]\ncommand = "a"\nargs = "x y"\n', "'args' must be a list of strings"),
    ('[mcp_servers.t]\ncommand = "a"\nenv = { A = 1 }\n', "'env' must be a table of strings"),
    ('[mcp_servers.t]\nurl = "ftp://h"\n', "'url' must be an http(s) URL"),
    ('[mcp_servers.t]\ncommand = "a"\nenabled = "yes"\n', "'enabled' must be a boolean"),
    ('[mcp_servers.t]\ncommand = "a"\nstartup_timeout_s = 0\n', "greater than 0"),
    ('[mcp_servers.t]\ncommand = "a"\ntool_timeout_s = true\n', "'tool_timeout_s' must be"),
    ('[mcp_servers."a b"]\ncommand = "a"\n', "a server name is 1-32 letters"),
    ("mcp_servers = 3\n", "'mcp_servers' must be a table of [mcp_servers.NAME]"),
    ("[mcp_servers]\nt = 3\n", "'mcp_servers.t' must be a table"),
    ("[mcp_servers.t\n", "not valid TOML"),
])
def test_a_bad_value_names_the_file_and_the_key(tmp_path: Path, table: str,
                                                expected: str) -> None:
    with pytest.raises(McpConfigError) as caught:
        servers_of(tmp_path, "", table)
    assert str(caught.value).startswith(f"{tmp_path / 'project.toml'}")
    assert expected in str(caught.value)


def test_secrets_stay_out_of_repr_and_description(tmp_path: Path) -> None:
    (server,) = servers_of(tmp_path, '[mcp_servers.d]\nurl = "https://h/mcp"\n'
                           'headers = { X-Key = "hdr-secret-1" }\n'
                           'bearer_token_env_var = "D_TOKEN"\n')
    shown = repr(server) + server.describe()
    assert "hdr-secret-1" not in shown
    masked = server.secrets({"D_TOKEN": "bearer-secret-2"}).mask("hdr-secret-1 bearer-secret-2")
    assert masked == "*** ***"

"""Codex CLI side by side: its config and argv, the skip when it is absent, and the runs
end to end against a real engine (a fake ``codex`` that makes one real request, as the
real one does, so no Codex is needed)."""

from __future__ import annotations

import secrets
import sys
import tomllib
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest
import typer

from spark_cli.bench.oneshot.oneshot import _rival, run_benchmark
from spark_cli.bench.oneshot.request_relay import RequestRelay
from spark_cli.bench.oneshot.rival import (
    codex_argv,
    codex_config,
    codex_env,
    display_names,
    run_codex,
    side_figures,
    side_table,
)
from spark_cli.bench.processes import EngineProcess, start_engine

# The fake: checks what the bench must give codex, then speaks to the engine as codex does
# (the WebSocket: a generate:false warm-up, then the turn; else one SSE POST) and, like codex,
# calls the capped (incomplete) answer an error.
FAKE_CODEX = r'''#!{python}
import json, os, sys, tomllib
if sys.argv[1:] == ["--version"]:
    print("codex-cli 9.9.9")
    sys.exit(0)
expected = ["exec", "--skip-git-repo-check", "-s", "read-only", "stream lorem"]
assert sys.argv[1:] == expected, sys.argv
assert os.path.samestat(os.fstat(0), os.stat("/dev/null")), "stdin is not /dev/null"
home = os.environ["CODEX_HOME"]
config = tomllib.loads(open(os.path.join(home, "config.toml")).read())
provider = config["model_providers"][config["model_provider"]]
key = os.environ[provider["env_key"]]
base = provider["base_url"]
assert "model" not in config, "the bench names no model: Codex asks for its default"
# what codex 0.171.0 sends for its default model: its tools in an additional_tools item
tools = {{"type": "additional_tools", "id": "at_1", "role": "developer", "tools": [
    {{"type": "namespace", "name": "functions", "description": "", "tools": [
        {{"type": "custom", "name": "exec", "description": "Run JavaScript",
         "format": {{"type": "grammar", "syntax": "lark", "definition": "start: SOURCE"}}}}]}}]}}
prompt = {{"type": "message", "role": "user",
          "content": [{{"type": "input_text", "text": "stream lorem"}}]}}
turn = {{"model": "gpt-6.2-sol", "input": [tools, prompt]}}
status = None
if provider.get("supports_websockets"):
    from websockets.sync.client import connect
    with connect(base.replace("http://", "ws://") + "/responses", compression=None,
                 additional_headers={{"Authorization": "Bearer " + key}}) as ws:
        for message in ({{"type": "response.create", "generate": False, **turn, "input": []}},
                        {{"type": "response.create", **turn}}):
            ws.send(json.dumps(message))
            while True:
                event = json.loads(ws.recv(timeout=30))
                if event["type"] in ("response.completed", "response.incomplete"):
                    status = event["response"]["status"]
                    break
else:
    import http.client, urllib.parse
    url = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
    conn.request("POST", url.path + "/responses", json.dumps({{"stream": True, **turn}}),
                 {{"Authorization": "Bearer " + key, "Content-Type": "application/json"}})
    body = conn.getresponse().read().decode()
    status = "incomplete" if "response.incomplete" in body else "completed"
if status == "incomplete":
    print("ERROR: Incomplete response returned, reason: max_output_tokens", file=sys.stderr)
    sys.exit(1)
'''


@pytest.fixture
def fake_codex(tmp_path: Path) -> str:
    path = tmp_path / "bin" / "codex"
    path.parent.mkdir()
    path.write_text(FAKE_CODEX.format(python=sys.executable))
    path.chmod(0o755)
    return str(path)


@pytest.fixture
def engine() -> Iterator[EngineProcess]:
    process = start_engine(secrets.token_urlsafe(8), "--brain", "lorem", "--tps", "20000",
                           "--ttft-ms", "0", "--max-output-tokens", "300")
    yield process
    process.stop()


def test_the_websocket_config_names_the_engine_as_a_responses_provider_over_websockets():
    config = tomllib.loads(codex_config("http://127.0.0.1:4321/v1", "responses_ws"))
    assert "model" not in config and config["model_provider"] == "spark"
    assert config["features"] == {"shell_snapshot": False, "responses_websockets": True,
                                  "responses_websockets_v2": True}
    assert config["model_providers"]["spark"] == {
        "name": "spark engine", "base_url": "http://127.0.0.1:4321/v1", "env_key": "SPARK_KEY",
        "wire_api": "responses", "supports_websockets": True}


def test_the_sse_config_has_no_websocket_switch_and_chat_has_no_config():
    config = tomllib.loads(codex_config("http://h:1/v1", "responses_sse"))
    assert config["features"] == {"shell_snapshot": False}
    assert "supports_websockets" not in config["model_providers"]["spark"]
    with pytest.raises(ValueError, match="Codex has no chat_sse channel"):
        codex_config("http://h:1/v1", "chat_sse")


def test_argv_and_env_run_one_turn_with_the_bench_home_and_key_only(monkeypatch, tmp_path):
    assert codex_argv("/x/codex") == ["/x/codex", "exec", "--skip-git-repo-check", "-s",
                                      "read-only", "stream lorem"]
    for name, value in (("CODEX_HOME", "/home/u/.codex"), ("CODEX_API_KEY", "sk-user"),
                        ("RUST_LOG", "trace"), ("OPENAI_API_KEY", "sk-u")):
        monkeypatch.setenv(name, value)
    env = codex_env(tmp_path, "tok")
    assert (env["CODEX_HOME"], env["SPARK_KEY"]) == (str(tmp_path), "tok")
    assert not {"CODEX_API_KEY", "RUST_LOG", "OPENAI_API_KEY"} & set(env)


def test_no_codex_on_path_skips_with_a_one_line_note(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert _rival(None, skip=False) is None
    note = capsys.readouterr().out
    assert note.count("\n") == 1 and "--codex PATH" in note


def test_codex_is_found_on_path_or_by_path_and_a_bad_path_is_an_error(
        monkeypatch, fake_codex, capsys):
    monkeypatch.setenv("PATH", str(Path(fake_codex).parent))
    assert _rival(None, skip=False) == fake_codex
    assert _rival(fake_codex, skip=False) == fake_codex
    assert _rival(None, skip=True) is None
    with pytest.raises(typer.Exit):
        _rival("/no/such/codex", skip=False)
    assert "--codex /no/such/codex: no such executable" in capsys.readouterr().err


@pytest.mark.parametrize("channel", ["responses_ws", "responses_sse"])
def test_a_codex_run_is_timed_at_the_relay_and_its_answer_checked(
        channel, engine, fake_codex, tmp_path):
    host, port = engine.url.removeprefix("http://").split(":")
    with closing(RequestRelay(host, int(port))) as relay:
        run = run_codex(fake_codex, channel, relay, engine.token, 300, tmp_path)
        assert "spark" in (tmp_path / f"codex-home-{channel}" / "config.toml").read_text()
        with pytest.raises(RuntimeError, match="300 output tokens, not 5000"):
            run_codex(fake_codex, channel, relay, engine.token, 5000, tmp_path)
    assert (run.output_tokens, run.answer_requests, run.exit_code) == (300, 1, 1)
    assert run.own_stamp_s is None and run.cpu_s > 0 and run.peak_rss_kb > 0
    assert 0 < run.first_request_s <= run.launch_to_request_s
    if channel == "responses_ws":  # the warm-up came first
        assert run.first_request_s < run.launch_to_request_s
    else:
        assert run.first_request_s == run.launch_to_request_s


def test_the_benchmark_runs_spark_and_codex_side_by_side(fake_codex, tmp_path):
    figures = run_benchmark(reps=2, tokens=200, tps=20000.0, workdir=tmp_path,
                            channels=("responses_ws",), bundled=False, codex=fake_codex)
    side = figures["side"]
    assert side["version"] == "codex-cli 9.9.9"
    assert set(side["rows"]) == {"spark/responses_ws", "codex/responses_ws",
                                 "spark/responses_sse", "codex/responses_sse", "spark/chat_sse"}
    for key, row in side["rows"].items():
        assert row["reps"] == 2 and row["output_tokens"] == 200
        assert row["answer_requests"] == [1]
        assert (row["own_stamp_s"] is None) == key.startswith("codex/")
    rendered = side_table(side, 200)
    assert "| Codex CLI 9.9.9, Chat Completions, SSE | no such wire" in rendered
    assert "Codex CLI 9.9.9 on Responses, WebSocket sends a request asking for no answer" \
        in rendered
    assert "exit codes: spark 5, Codex CLI 9.9.9 1 (Codex reports" in rendered  # 5: no edit


def test_side_figures_are_median_and_min_and_the_table_shows_them():
    from spark_cli.bench.oneshot.rival import SideRun

    runs = [SideRun(0.2, 0.1, None, 0.6, 0.5, 150 * 1024, 5000, 1, 1),
            SideRun(0.4, 0.3, None, 0.8, 0.6, 140 * 1024, 5000, 1, 1),
            SideRun(0.3, 0.2, None, 0.7, 0.4, 160 * 1024, 5000, 1, 1)]
    codex = side_figures(runs)
    assert codex["launch_to_request_s"] == (0.3, 0.2) and codex["cpu_s"] == (0.7, 0.6)
    assert codex["peak_rss_mb"] == (150, 140) and codex["own_stamp_s"] is None
    spark = side_figures([SideRun(0.09, 0.09, 0.085, 0.3, 0.3, 30 * 1024, 5000, 1, 0)])
    rendered = side_table({"version": "codex-cli 0.171.0",
                           "rows": {"spark/responses_ws": spark, "codex/responses_ws": codex}},
                          5000)
    assert "| spark, Responses, WebSocket | 0.090 / 0.090 s | 0.085 / 0.085 s | " \
        "0.300 / 0.300 s | 0.300 / 0.300 s | 30 / 30 MB |" in rendered
    assert "| Codex CLI 0.171.0, Responses, WebSocket | 0.300 / 0.200 s | — | " \
        "0.700 / 0.600 s | 0.500 / 0.400 s | 150 / 140 MB |" in rendered
    assert "CPU, whole process, 5,000-token answer" in rendered
    assert "at 0.200 / 0.100 s" in rendered  # Codex's warm-up, before its answer request
    assert ("spark's launch → request over Codex CLI 0.171.0's (medians): Responses, "
            "WebSocket 0.30× (target ≤ 0.8×: met)") in rendered  # 0.09 / 0.3
    assert display_names("weird") == {"spark": "spark", "codex": "Codex CLI (weird)"}

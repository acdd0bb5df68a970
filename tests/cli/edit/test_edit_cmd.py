"""`spark edit PATH...`: usage errors (exit 2), and end to end against the bundled engine."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from trusting import write_project
from typer.testing import CliRunner

from spark_cli.cli.main import app

PY = ('def total_price(items):\n    return sum(items)\n\n\n'
      'def report(items):\n    return "total: " + str(total_price(items))\n')


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "app.py").write_text(PY)
    (tmp_path / "blob.bin").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (tmp_path / "sub").mkdir()
    config = tmp_path.parent / f"{tmp_path.name}-config"
    config.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(config))
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def run(args: list[str], stdin: str | bytes | None = None):
    return CliRunner().invoke(app, args, input=stdin)


def _one_error_line(result) -> str:
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("spark edit: ")
    return lines[0]


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["missing.py", "-m", "x"], "missing.py: no such file"),
        (["blob.bin", "-m", "x"], "binary"),
        (["sub", "-m", "x"], "is a directory"),
        (["app.py", "-m", "  "], "instruction (-m) is empty"),
        (["app.py", "-m", "x", "--format", "udiff"], "--format must be one of"),
        (["app.py", "-m", "x", "--lang", "python"], "--lang is for pipe mode"),
        (["app.py", "-m", "x", "--root", "nowhere"], "is not a directory"),
    ],
)
def test_usage_errors_exit_2_with_one_clear_line(repo: Path, args: list[str], needle: str):
    result = run(["edit", *args])
    assert result.exit_code == 2, result.output
    assert needle in _one_error_line(result)
    assert (repo / "app.py").read_text() == PY


def test_path_outside_the_root_is_a_usage_error(repo: Path, tmp_path_factory):
    outside = tmp_path_factory.mktemp("elsewhere") / "x.py"
    outside.write_text("x = 1\n")
    result = run(["edit", str(outside), "-m", "x"])
    assert result.exit_code == 2
    assert "outside the repo root" in _one_error_line(result)


def test_missing_instruction_is_a_usage_error(repo: Path):
    result = run(["edit", "app.py"])
    assert result.exit_code == 2
    assert "-m" in result.stderr


def test_edit_does_not_import_textual_or_rich_or_transports():
    code = (
        "import sys\n"
        "import spark_cli.cli.main\n"
        "import spark_cli.cli.edit.edit_cmd, spark_cli.cli.edit.edit_run\n"
        "import spark_cli.cli.edit.pipe_mode\n"
        "bad = [m for m in ('textual', 'rich', 'httpx', 'websockets', 'uvicorn', 'tree_sitter')"
        " if m in sys.modules]\n"
        "print(','.join(bad))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == ""


# ---- end to end (the real session, edits and engine) ----


@pytest.mark.parametrize("fmt", ["search_replace", "apply_patch"])
def test_rename_with_the_bundled_engine(repo: Path, fmt: str):
    result = run(["edit", "app.py", "--format", fmt, "-m", "rename total_price to grand_total"])
    assert result.exit_code == 0, result.output
    text = (repo / "app.py").read_text()
    assert "def grand_total(items)" in text and "str(grand_total(items))" in text
    assert "-def total_price(items):" in result.stdout
    assert "+def grand_total(items):" in result.stdout
    assert "TTFT" in result.stdout and " applied, 0 refused" in result.stdout


def test_dry_run_writes_nothing(repo: Path):
    result = run(["edit", "app.py", "--dry-run", "-m", "rename total_price to grand_total"])
    assert result.exit_code == 0, result.output
    assert (repo / "app.py").read_text() == PY
    assert "+def grand_total(items):" in result.stdout
    assert "dry run" in result.stdout


def test_json_lines_parse_and_follow_the_schema(repo: Path):
    result = run(["edit", "app.py", "--json", "-m", "rename total_price to grand_total"])
    assert result.exit_code == 0, result.output
    events = [json.loads(line) for line in result.stdout.splitlines()]
    types = [e["type"] for e in events]
    assert types[-1] == "summary"
    assert "request_sent" in types and "edit_applied" in types and "diff" in types
    assert types.index("request_sent") < types.index("edit_applied") < types.index("summary")
    summary = events[-1]
    assert summary["applied"] >= 1 and summary["refused"] == 0 and summary["exit_code"] == 0
    assert summary["marks"]["request_sent_at"] is not None
    assert "grand_total" in (repo / "app.py").read_text()


def test_refused_edit_exits_1_and_leaves_the_file(repo: Path):
    # the result would not parse: the syntax check refuses it
    result = run(["edit", "app.py", "-m", "replace 'return sum(items)' with 'return (sum(items'"])
    assert result.exit_code == 1, result.output
    assert "refused" in result.stdout
    assert (repo / "app.py").read_text() == PY


@pytest.mark.parametrize(("exit_status", "code", "verdict"), [(0, 0, "tests passed"),
                                                              (3, 4, "tests FAILED (exit 3)")])
def test_test_flag_runs_the_configured_tests_after(repo: Path, exit_status: int, code: int,
                                                   verdict: str):
    (repo / ".spark").mkdir()
    command = f"{sys.executable} -c 'import sys; sys.exit({exit_status})'"
    write_project(repo, f'test_command = "{command}"\n')
    result = run(["edit", "app.py", "--test", "-m", "rename total_price to grand_total"])
    assert result.exit_code == code, result.output
    assert verdict in result.stdout
    assert "grand_total" in (repo / "app.py").read_text()


def test_tests_never_run_without_the_flag(repo: Path):
    (repo / ".spark").mkdir()
    marker = repo / "ran"
    (repo / "mark.py").write_text("open('ran', 'w').close()\n")
    command = f"{sys.executable} mark.py"
    write_project(repo, f'test_command = "{command}"\n')
    result = run(["edit", "app.py", "-m", "rename total_price to grand_total"])
    assert result.exit_code == 0, result.output
    assert not marker.exists()
    assert "tests" not in result.stdout.lower().split("ttft")[-1]
    again = run(["edit", "app.py", "--test", "-m", "rename grand_total to total"])
    assert again.exit_code == 0, again.output
    assert marker.exists()  # the marker works: only --test ran it


# ---- a real `spark edit` process against the `engine` fixture (--base-url) ----


async def _spark_process(args: list[str], cwd: Path, env_extra: dict[str, str]):
    import asyncio
    import os

    env = {**os.environ, "NO_COLOR": "1", **env_extra}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "spark_cli", "edit", *args, cwd=cwd, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    return proc.returncode, out.decode(), err.decode()


async def test_base_url_to_a_running_engine(repo: Path, engine):
    code, out, err = await _spark_process(
        ["app.py", "--provider", "mock", "--base-url", engine.url + "/v1",
         "-m", "rename total_price to grand_total"], repo, {"SPARK_API_KEY": engine.token})
    assert code == 0, err
    assert "+def grand_total(items):" in out
    assert "grand_total" in (repo / "app.py").read_text()


async def test_stream_dropped_by_the_engine_exits_3_with_one_line(repo: Path, engine_factory):
    from spark_cli.engine.core.config import FaultConfig

    engine = await engine_factory(faults=FaultConfig(drop_after_tokens=3))
    code, _out, err = await _spark_process(
        ["app.py", "--provider", "mock", "--base-url", engine.url + "/v1",
         "-m", "rename total_price to grand_total"], repo, {"SPARK_API_KEY": engine.token})
    assert code == 3, err
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("spark edit: "), err
    assert (repo / "app.py").read_text() == PY


def test_unreachable_base_url_exits_3(repo: Path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run(["edit", "app.py", "--provider", "openai-compatible", "--base-url",
                  f"http://127.0.0.1:{port}/v1", "--model", "m", "-m", "x"])
    assert result.exit_code == 3, result.output
    line = _one_error_line(result)
    assert f"127.0.0.1:{port}" in line or "connect" in line.lower()
    assert (repo / "app.py").read_text() == PY


def test_too_big_for_the_window_is_a_usage_error(repo: Path):
    (repo / ".spark").mkdir()
    write_project(repo, "context_window = 3000\nmax_output_tokens = 500\n")
    (repo / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(2000)))
    result = run(["edit", "big.py", "-m", "rename value_1 to first"])
    assert result.exit_code == 2, result.output
    line = _one_error_line(result)
    assert "big.py" in line
    assert (repo / "big.py").read_text().startswith("value_0 = 0\n")


def test_a_piped_run_never_imports_textual_or_rich(repo: Path):
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "spark_cli", "edit", "app.py", "-m",
         "rename total_price to grand_total"], capture_output=True, text=True, timeout=60,
        cwd=repo)
    assert done.returncode == 0, done.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "spark_cli.session.conversation" in imported  # the probe sees the real run
    assert not {m for m in imported if m.split(".")[0] in ("textual", "rich")}


async def test_stdout_closed_early_stops_quietly_with_141(repo: Path, engine_factory):
    import asyncio
    import os

    engine = await engine_factory(brain="lorem", tps=2000, ttft_ms=0)
    env = {**os.environ, "SPARK_API_KEY": engine.token}
    argv = [sys.executable, "-m", "spark_cli", "edit", "app.py", "--json", "--provider", "mock",
            "--base-url", engine.url + "/v1", "--max-output-tokens", "5000", "-m", "lorem"]

    def like_head_1() -> tuple[bytes, int, bytes]:
        proc = subprocess.Popen(argv, cwd=repo, env=env, stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        line = proc.stdout.readline()
        proc.stdout.close()  # the reader goes away, as `| head -1` does
        try:
            _out, err = proc.communicate(timeout=60)
        finally:
            proc.kill()
        proc.stderr.close()
        return line, proc.returncode, err

    async with asyncio.timeout(90):
        first, code, err = await asyncio.to_thread(like_head_1)
    assert json.loads(first)["type"] == "request_sent"
    assert code == 141, err
    assert b"Traceback" not in err and b"engine" not in err


# ---- Ctrl-C, the budget before the engine, errors that say what to do ----


BLOCK = ("app.py\n<<<<<<< SEARCH\ndef total_price(items):\n=======\n"
         "def grand_total(items):\n>>>>>>> REPLACE\n")
SLOW_TALK = "".join(f"and then some more words {n}. " for n in range(300))


class _SlowBrain:
    name = "slow"

    def answer(self, request: object):
        yield "Renaming.\n" + BLOCK + SLOW_TALK


async def _interrupted_run(repo: Path, engine_factory, extra: list[str], wait_for: str):
    """A real `spark edit` process, sent SIGINT once ``wait_for`` shows up on its stdout."""
    import asyncio
    import os
    import signal

    engine = await engine_factory(brains=lambda model: _SlowBrain(), tps=150, ttft_ms=0)
    env = {**os.environ, "NO_COLOR": "1", "SPARK_API_KEY": engine.token}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "spark_cli", "edit", "app.py", "--base-url", engine.url + "/v1",
        "-m", "rename total_price to grand_total", *extra, cwd=repo, env=env,
        stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    out: list[str] = []
    async with asyncio.timeout(60):
        while True:
            line = (await proc.stdout.readline()).decode()
            assert line, "the run ended before it could be interrupted"
            out.append(line)
            if wait_for in line:
                break
        proc.send_signal(signal.SIGINT)
        rest, err = await proc.communicate()
    return proc.returncode, "".join(out) + rest.decode(), err.decode()


async def test_ctrl_c_with_json_ends_with_the_turn_the_diff_and_the_summary(
    repo: Path, engine_factory
):
    code, out, err = await _interrupted_run(repo, engine_factory, ["--json"], '"edit_applied"')
    assert code == 130, err
    events = [json.loads(line) for line in out.splitlines()]
    types = [e["type"] for e in events]
    completed = next(e for e in events if e["type"] == "turn_completed")
    assert completed["status"] == "cancelled" and completed["reason"] == "interrupted"
    assert types.index("turn_completed") < types.index("diff") < types.index("summary")
    assert types[-1] == "summary"
    summary = events[-1]
    assert summary["exit_code"] == 130 and summary["status"] == "cancelled"
    assert summary["applied"] == 1
    diff = next(e for e in events if e["type"] == "diff")
    assert "+def grand_total(items):" in diff["diff"]
    prose = "".join(e["text"] for e in events if e["type"] == "prose_delta")
    assert len(prose) < len(SLOW_TALK)  # generation stopped
    assert "grand_total" in (repo / "app.py").read_text()  # what landed stays
    assert "interrupted" in err and "Traceback" not in err


async def test_ctrl_c_in_text_mode_prints_the_end_diff_and_the_summary(repo: Path, engine_factory):
    code, out, err = await _interrupted_run(repo, engine_factory, [], "[+] app.py")
    assert code == 130, err
    assert "+def grand_total(items):" in out
    assert "cancelled (interrupted)" in out.splitlines()[-1]
    assert err.strip().splitlines()[-1].startswith("spark edit: interrupted")


def test_ctrl_c_while_the_request_is_sent_ahead_ends_with_the_summary(repo: Path):
    """A server that takes the connection and never answers the WebSocket handshake: Ctrl-C
    while the head start waits ends the run as an interrupted turn (exit 130, summary)."""
    import os
    import signal
    import socket

    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(60)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/v1"
        env = {**os.environ, "NO_COLOR": "1", "SPARK_API_KEY": "k"}
        proc = subprocess.Popen(
            [sys.executable, "-m", "spark_cli", "edit", "app.py", "--json", "--provider", "mock",
             "--base-url", url, "-m", "rename total_price to grand_total"],
            cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True)
        conn, _ = listener.accept()  # the head start connected: it now waits for the 101
        with conn:
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    summary = json.loads(out.splitlines()[-1])
    assert summary["type"] == "summary" and summary["exit_code"] == 130
    assert (summary["status"], summary["reason"]) == ("cancelled", "interrupted")
    assert "interrupted" in err and "Traceback" not in err
    assert "total_price" in (repo / "app.py").read_text()


def test_too_big_for_the_window_never_starts_the_engine(repo: Path, monkeypatch):
    from spark_cli.cli import wiring

    started: list[bool] = []

    def no_engine():
        started.append(True)
        raise AssertionError("the engine was started")

    monkeypatch.setattr(wiring, "_bundled_engine", no_engine)
    (repo / ".spark").mkdir()
    write_project(repo, "context_window = 3000\nmax_output_tokens = 500\n")
    (repo / "big.py").write_text("".join(f"value_{i} = {i}\n" for i in range(2000)))
    result = run(["edit", "big.py", "--json", "-m", "rename value_1 to first"])
    assert result.exit_code == 2, result.output
    assert not started
    events = [json.loads(line) for line in result.stdout.splitlines()]
    assert [e["type"] for e in events] == ["turn_failed", "summary"]
    assert events[0]["kind"] == "budget"


async def test_a_missing_key_for_an_engine_with_a_token_names_spark_api_key(
    repo: Path, engine
):
    code, _out, err = await _spark_process(
        ["app.py", "--base-url", engine.url + "/v1", "-m", "rename total_price to x"], repo, {})
    assert code == 3, err
    assert "set SPARK_API_KEY" in err


def test_a_host_that_does_not_resolve_fails_at_once(repo: Path):
    result = run(["edit", "app.py", "--provider", "openai-compatible", "--model", "m",
                  "--base-url", "http://no-such-host.invalid/v1", "--json", "-m", "x"])
    assert result.exit_code == 3, result.output
    assert "cannot resolve the host 'no-such-host.invalid'" in _one_error_line(result)
    assert '"waiting_to_retry"' not in result.stdout


def test_a_password_in_the_base_url_is_never_printed(repo: Path):
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = run(["edit", "app.py", "--provider", "openai-compatible", "--model", "m",
                  "--base-url", f"http://u:s3cr3tpass@127.0.0.1:{port}/v1", "--json", "-m", "x"])
    assert result.exit_code == 3, result.output
    assert "s3cr3tpass" not in result.output and "s3cr3tpass" not in result.stderr
    assert "***@127.0.0.1" in result.stderr
    assert '"request_sent"' not in result.stdout  # nothing ever left


async def test_time_info_from_chat_completions_reaches_the_json_summary(repo: Path, engine):
    code, out, err = await _spark_process(
        ["app.py", "--provider", "openai-compatible", "--model", "m", "--base-url",
         engine.url + "/v1", "--json", "-m", "rename total_price to grand_total"], repo,
        {"SPARK_API_KEY": engine.token})
    assert code == 0, err
    events = [json.loads(line) for line in out.splitlines()]
    summary = events[-1]
    assert summary["type"] == "summary"
    assert summary["time_info"]["completion_time"] >= 0
    usage = [e for e in events if e["type"] == "usage_reported"][-1]  # the last response's
    assert usage["time_info"] == summary["time_info"]

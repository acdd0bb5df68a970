"""`spark engine serve`: flags, the one-line URL, refusals, and a clean Ctrl-C."""

from __future__ import annotations

import re
import signal
import subprocess
import sys

import httpx
import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app

LINE = re.compile(r"^spark engine listening on (ws://127\.0\.0\.1:\d+/v1/responses) "
                  r"\((http://127\.0\.0\.1:\d+)\)$")


def test_refuses_public_bind_without_token() -> None:
    result = CliRunner().invoke(app, ["engine", "serve", "--host", "0.0.0.0"])
    assert result.exit_code == 2
    assert "--token" in result.output


@pytest.mark.parametrize("spec", ["drop", "stall:1", "429:7", "melt:3"])
def test_bad_fault_is_a_usage_error(spec: str) -> None:
    result = CliRunner().invoke(app, ["engine", "serve", "--fault", spec])
    assert result.exit_code == 2
    assert "--fault" in result.output


@pytest.mark.parametrize("flags", [["--tps", "0"], ["--deep-tps", "0"], ["--deep-tps", "-5"],
                                   ["--deep-ttft-ms", "-1"]])
def test_bad_numbers_are_refused(flags: list[str]) -> None:
    result = CliRunner().invoke(app, ["engine", "serve", *flags])
    assert result.exit_code == 2
    assert flags[0].removeprefix("--").replace("-", "_") in result.output


def test_serve_prints_the_url_serves_and_stops_on_ctrl_c() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "spark_cli", "engine", "serve", "--port", "0", "--token", "k",
         "--fault", "stall:10:5", "--tps", "5000", "--deep-tps", "60", "--deep-ttft-ms", "900"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline().rstrip("\n")
        match = LINE.match(line)
        assert match, line
        http = match.group(2)
        with httpx.Client(trust_env=False, timeout=5) as client:
            assert client.get(http + "/healthz").status_code == 200
            assert client.get(http + "/v1/models").status_code == 401
            ok = client.get(http + "/v1/models", headers={"Authorization": "Bearer k"})
            assert ok.status_code == 200
            pacing = {m["id"]: m["pacing"] for m in ok.json()["data"]}
            assert pacing["spark-deep"] == {"tokens_per_second": 60, "ttft_ms": 900}
            assert pacing["spark-rules"]["tokens_per_second"] == 5000
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=10)
        assert proc.returncode == 0, err
        assert "Traceback" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_unknown_brain_is_a_usage_error() -> None:
    result = CliRunner().invoke(app, ["engine", "serve", "--port", "0", "--brain", "bogus"])
    assert result.exit_code == 2
    assert "bogus" in result.output


@pytest.mark.parametrize("host", ["127.evil.example", "127.0.0.1.nip.io", "10.0.0.1"])
def test_only_real_loopback_skips_the_token(host: str) -> None:
    result = CliRunner().invoke(app, ["engine", "serve", "--host", host, "--port", "0"])
    assert result.exit_code == 2
    assert "--token" in result.output


@pytest.mark.parametrize("host", ["127.0.0.2", "::1", "localhost", "LOCALHOST"])
def test_loopback_hosts_are_recognised(host: str) -> None:
    from spark_cli.cli.engine_cmd import _is_loopback

    assert _is_loopback(host)


def test_port_in_use_is_one_clear_line() -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "spark_cli", "engine", "serve", "--port", str(port)],
            capture_output=True, text=True, timeout=30,
        )
    assert result.returncode == 3
    assert result.stderr.strip() == (
        f"spark engine: cannot listen on 127.0.0.1:{port}: address in use")

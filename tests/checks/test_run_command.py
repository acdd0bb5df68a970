"""run_command with real processes (no sandbox): order, decoding, cuts, masking, the
environment, and the whole process group ending on timeout or stop."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

from spark_cli.checks.runner import run_command
from spark_cli.protocol.secrets import OUTPUT_MASK as MASK
from spark_cli.protocol.secrets import Masker
from tests.checks.processes import alive_with

PY = sys.executable
ENV = {"PATH": os.environ["PATH"]}


async def test_exit_code_and_interleaved_output(tmp_path: Path) -> None:
    run = await run_command("echo out1; echo err1 >&2; echo out2; exit 3", tmp_path,
                            timeout=30, env=ENV)
    assert run.ended == "exit" and run.exit_code == 3 and run.output == "out1\nerr1\nout2\n"
    assert run.status.startswith("exit 3 · ") and run.cut_bytes == 0


async def test_runs_in_the_root_with_stdin_closed(tmp_path: Path) -> None:
    run = await run_command("pwd; cat; echo read-nothing", tmp_path, timeout=30, env=ENV)
    assert run.output == f"{tmp_path}\nread-nothing\n"


async def test_invalid_utf8_is_replaced_and_colours_removed(tmp_path: Path) -> None:
    run = await run_command(r"printf 'a\377b \033[31mred\033[0m\n'", tmp_path, timeout=30,
                            env=ENV)
    assert run.exit_code == 0 and run.output == "a\ufffdb red\n"


async def test_a_missing_program_is_exit_127(tmp_path: Path) -> None:
    run = await run_command("spark-no-such-program-xyz", tmp_path, timeout=30, env=ENV)
    assert run.exit_code == 127 and "not found" in run.output
    gone = await run_command("true", tmp_path / "gone", timeout=30, env=ENV)
    assert gone.exit_code == 127 and gone.output == f"{tmp_path / 'gone'}: no such folder\n"


async def test_long_output_keeps_head_and_tail(tmp_path: Path) -> None:
    command = f"{PY} -c \"[print(f'line {{n}}') for n in range(10000)]\""
    run = await run_command(command, tmp_path, timeout=60, env=ENV, head_bytes=100,
                            tail_bytes=100)
    whole = "".join(f"line {n}\n" for n in range(10000))
    assert run.head == whole[:100] and run.tail == whole[-100:]
    assert run.cut_bytes == len(whole) - 200
    assert run.cut_lines == whole[100:-100].count("\n")
    assert f"[… {run.cut_lines} lines ({run.cut_bytes} bytes) cut …]" in run.output


async def test_on_output_gets_chunks_not_bytes(tmp_path: Path) -> None:
    chunks: list[str] = []
    run = await run_command(f"{PY} -c \"print('x' * 300_000)\"", tmp_path, timeout=60,
                            env=ENV, on_output=chunks.append)
    assert "".join(chunks) == "x" * 300_000 + "\n" and len(chunks) < 50
    assert run.cut_bytes == 300_001 - 2 * 64 * 1024


async def test_api_keys_are_not_in_the_environment(tmp_path: Path) -> None:
    env = {**ENV, "OPENAI_API_KEY": "sk-one", "github_token": "gh-two",
           "SPARK_API_KEY": "three", "PROVIDER": "the-configured-key-value", "KEPT": "yes"}
    run = await run_command("env", tmp_path, timeout=30, env=env, keep_env=["KEPT"],
                            masker=Masker(["the-configured-key-value"]))
    assert "KEPT=yes" in run.output
    for leaked in ("OPENAI_API_KEY", "github_token", "SPARK_API_KEY", "PROVIDER=", "sk-one"):
        assert leaked not in run.output


async def test_a_secret_split_across_reads_is_masked(tmp_path: Path) -> None:
    secret = "sk-live-0123456789abcdef"
    (tmp_path / "key.txt").write_text(secret)
    code = ("import sys, time\n"
            f"for part in ('key=', {secret[:9]!r}, {secret[9:]!r}, ' end\\n'):\n"
            "    sys.stdout.write(part); sys.stdout.flush(); time.sleep(0.05)\n")
    (tmp_path / "writer.py").write_text(code)
    chunks: list[str] = []
    run = await run_command(f"{PY} writer.py; cat key.txt", tmp_path, timeout=30, env=ENV,
                            masker=Masker([secret]), on_output=chunks.append)
    assert run.output == f"key={MASK} end\n{MASK}" == "".join(chunks)
    assert len(chunks) >= 2 and not any(secret[:9] in chunk for chunk in chunks)


def _stubborn(marker: str) -> str:
    """A shell that ignores SIGTERM, with a grandchild in the background (both marked)."""
    return f"trap '' TERM; sleep 30.{marker}1 & echo started; sleep 30.{marker}2"


async def test_timeout_kills_a_child_ignoring_sigterm_and_its_grandchild(
        tmp_path: Path) -> None:
    marker = f"{os.getpid()}7"
    run = await run_command(_stubborn(marker), tmp_path, timeout=0.5, env=ENV)
    assert run.ended == "timeout" and run.exit_code is None and run.output == "started\n"
    assert run.status.startswith("killed: timeout after 0.5 s · ")
    assert alive_with(f"30.{marker}") == []  # nothing outlives the call
    assert run.duration_s < 10  # SIGKILL came, not the end of the 30 s sleeps


async def test_stop_ends_the_group(tmp_path: Path) -> None:
    marker = f"{os.getpid()}8"
    stop = asyncio.Event()

    def on_output(chunk: str) -> None:
        if "started" in chunk:
            stop.set()

    run = await run_command(_stubborn(marker), tmp_path, timeout=60, env=ENV, stop=stop,
                            on_output=on_output)
    assert run.ended == "stopped" and run.status.startswith("stopped by the user · ")
    assert alive_with(f"30.{marker}") == []


async def test_background_job_left_behind_is_ended_when_the_command_exits(
        tmp_path: Path) -> None:
    marker = f"{os.getpid()}9"
    run = await run_command(f"sleep 30.{marker} & echo done", tmp_path, timeout=60, env=ENV)
    assert run.ended == "exit" and run.exit_code == 0 and run.output == "done\n"
    assert alive_with(f"30.{marker}") == []

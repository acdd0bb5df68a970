"""`spark edit`, the pipe filter and a TUI turn against a real llama.cpp server (see conftest):
llama-cpp-python's, and llama.cpp's own ``llama-server`` where the behaviour is the same.

What a new user meets on a CPU server with a small window: the window is learned from the
server (llama-cpp-python's says it only in its overflow answer), a slow prefill is waited out
(no retry), an overflow is named with both sizes and trimmed once, a request that cannot fit
exits 2 with the figures, and nothing is damaged: every Python file still compiles.
SmolLM2-135M rarely writes a valid edit, so the tests assert what spark must guarantee
(exit codes, files intact, messages), not what the model writes: 0 applied, 1 refused,
5 no edit at all (its usual answer, often cut at the 96-token cap).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from waiting import wait_until

from tests.local_model.llama import (
    EXAMPLE,
    LLAMA_CPP,
    MODEL,
    PYTHON,
    LlamaServer,
    big_module,
)

EDIT_TIMEOUT_S = 600
"""Longest a `spark edit` run may take here (a CPU prefill on 2 shared cores)."""
ANSWER_TOKENS = 96
"""Small answers: the model's speed is not what is tested."""


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(tmp_path / "cfg"), SPARK_CACHE_DIR=str(tmp_path / "cache"),
               SPARK_STATE_DIR=str(tmp_path / "state"), NO_COLOR="1")
    return env


def _config(repo: Path, server: LlamaServer, **extra: object) -> None:
    """The user config (``spark``'s SPARK_CONFIG_DIR): a base URL is the user's to set."""
    (repo.parent / "cfg").mkdir(exist_ok=True)
    values = {"provider": "openai-compatible", "model": MODEL, "base_url": server.base_url,
              "max_output_tokens": ANSWER_TOKENS, **extra}
    lines = [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    (repo.parent / "cfg" / "config.toml").write_text("\n".join(lines) + "\n")


def spark(repo: Path, tmp_path: Path, *args: str,
          stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "spark_cli", *args], cwd=repo,
                          env=_env(tmp_path), input=stdin, capture_output=True, text=True,
                          timeout=EDIT_TIMEOUT_S,
                          stdin=None if stdin is not None else subprocess.DEVNULL)


def _python_intact(repo: Path) -> None:
    for path in repo.rglob("*.py"):
        if ".spark" in path.parts:
            continue
        compile(path.read_text(), str(path), "exec")  # a SyntaxError fails the test


def _summary(out: str) -> dict[str, Any]:
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    return next(line for line in reversed(lines) if line.get("type") == "summary")


def test_a_slow_prefill_completes_without_a_retry(llama_server: Any, shop_repo: Path,
                                                  tmp_path: Path) -> None:
    """8k window, a ~5k-token prompt (a file, the repo map) and the default 10 s idle timeout:
    the prefill takes longer than that on 2 busy cores (30-120 s here), and must be waited
    out (before, it was resent 3 times and failed after 43 s)."""
    server = llama_server(8192)
    _config(shop_repo, server, context_window=8192)
    target = shop_repo / "src" / "shop" / "coupons.py"
    target.write_text(big_module("coupons", 40))
    before = target.read_text()
    done = spark(shop_repo, tmp_path, "edit", "src/shop/coupons.py", "--json", "-m",
                 "add a docstring to coupons_step_3")
    assert done.returncode in (0, 1, 5), done.stderr[-3000:]
    assert "retry" not in done.stderr and "retry" not in done.stdout
    summary = _summary(done.stdout)
    assert summary["status"] in ("completed", "incomplete"), summary  # at most 96 tokens
    assert summary["ttft_s"] is not None
    _python_intact(shop_repo)
    if summary["applied"] == 0:
        assert target.read_text() == before


def test_an_overflow_is_named_learned_and_trimmed_once(llama_server: Any, shop_repo: Path,
                                                       tmp_path: Path) -> None:
    """2k window: the first request (sized for an unknown window) overflows; spark names both
    sizes, keeps the window, and sends once more without the map."""
    server = llama_server(2048)
    _config(shop_repo, server)
    done = spark(shop_repo, tmp_path, "edit", "src/shop/pricing.py", "-m",
                 "add a docstring to with_tax")
    said = done.stdout + done.stderr
    assert "is larger than the model's window (2.0k)" in said, said[-3000:]
    assert "sending once more within 2,048 tokens" in said
    assert done.returncode in (0, 1, 5), said[-3000:]
    _python_intact(shop_repo)
    shown = spark(shop_repo, tmp_path, "config")
    line = next(ln for ln in shown.stdout.splitlines() if ln.startswith("context_window"))
    assert "learned 2048 at the overflow of" in line, line


@pytest.mark.parametrize("llama_server", [PYTHON, LLAMA_CPP], indirect=True)
def test_a_file_too_big_for_the_window_exits_2_with_both_sizes(llama_server: Any,
                                                               shop_repo: Path,
                                                               tmp_path: Path) -> None:
    """llama-cpp-python's window is learned at the overflow, then the resend is refused;
    llama-server states it (/props), so the request is refused before anything is sent."""
    server = llama_server(2048)
    _config(shop_repo, server)
    target = shop_repo / "src" / "shop" / "inventory.py"
    before, sent = target.read_text(), len(server.prompts()) if server.kind == LLAMA_CPP else 0
    done = spark(shop_repo, tmp_path, "edit", "src/shop/inventory.py", "-m",
                 "add a docstring to inventory_step_1")
    said = done.stdout + done.stderr
    assert done.returncode == 2, said[-3000:]
    if server.kind == PYTHON:
        assert "is larger than the model's window (2.0k)" in said
    else:
        assert server.prompts()[sent:] == [], said[-3000:]  # nothing sent
    assert "src/shop/inventory.py is" in said and "the window is 2,048 tokens" in said
    assert target.read_text() == before


@pytest.mark.parametrize("llama_server", [PYTHON, LLAMA_CPP], indirect=True)
def test_the_pipe_filter_gives_valid_code_back(llama_server: Any, tmp_path: Path) -> None:
    server = llama_server(8192)
    work = tmp_path / "work"
    work.mkdir()
    _config(work, server)
    source = (Path(__file__).resolve().parents[2] / "examples" / "repo" / "src" / "shop" /
              "pricing.py").read_text()
    done = spark(work, tmp_path, "edit", "-m", "add a docstring to with_tax", stdin=source)
    assert done.returncode in (0, 1, 5), done.stderr[-3000:]
    assert "retry" not in done.stderr
    assert done.stdout.strip()
    compile(done.stdout, "stdout.py", "exec")  # the original, or a valid edit of it


@pytest.mark.parametrize("llama_server", [LLAMA_CPP], indirect=True)
def test_the_usage_is_the_servers_own(llama_server: Any, shop_repo: Path,
                                      tmp_path: Path) -> None:
    """The stream-json result's tokens are what llama-server reported, within what its log
    says it did: every output token it generated, at least the prompt tokens it read (its
    prompt cache may have held the rest)."""
    server = llama_server(8192)
    _config(shop_repo, server, tools=False)
    since = len(server.prompts())
    done = spark(shop_repo, tmp_path, "edit", "src/shop/pricing.py", "--output-format",
                 "stream-json", "-m", "add a docstring to with_tax")
    assert done.returncode in (0, 1, 5), done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["type"] == "result", result
    usage = result["spark"]["usage"]
    read = server.prompts_since(since, 1)
    generated = [int(n) for n in re.findall(r"(?<!prompt) eval time =\s*[\d.]+ ms /\s*(\d+) "
                                             r"tokens", server.log.read_text(errors="replace"))]
    assert usage["counted"] is False and usage["requests"] == 1 == len(read)
    assert usage["output_tokens"] == generated[-1] == result["usage"]["output_tokens"]
    assert usage["input_tokens"] >= read[0][0] > 0


@pytest.mark.parametrize("llama_server", [LLAMA_CPP], indirect=True)
def test_best_of_2_races_on_two_slots_and_damages_nothing(llama_server: Any,
                                                          shop_repo: Path, tmp_path: Path) -> None:
    server = llama_server(8192, slots=2)  # --parallel 2: both candidates stream at once
    # one CPU thread: while one slot reads its prompt the other's answer gets no token for
    # longer than the default idle_timeout (10 s), which would drop it; what is tested here is
    # the race on two slots, not that pause
    _config(shop_repo, server, idle_timeout=120)
    target = shop_repo / "src" / "shop" / "pricing.py"
    done = spark(shop_repo, tmp_path, "edit", "src/shop/pricing.py", "--json", "--best-of", "2",
                 "-m", "add a docstring to with_tax")
    assert done.returncode in (0, 1, 4), done.stderr[-3000:]  # 4: neither passes (a 135M model)
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    finished = [e for e in events if e["type"] == "candidate_finished"]
    assert sorted(e["candidate"] for e in finished) == [1, 2], done.stderr[-3000:]
    assert not any(e["verdict"].startswith("dropped") for e in finished), json.dumps(finished)
    if done.returncode == 4:
        assert target.read_text() == (EXAMPLE / "src" / "shop" / "pricing.py").read_text()
    _python_intact(shop_repo)


async def test_a_tui_turn_learns_the_window_and_shows_it(llama_server: Any, shop_repo: Path,
                                                         tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A TUI turn on the 2k server: the overflow is named in the transcript and the turn is
    sent once more within the window, the HUD then shows the server's window, and the next
    turn is sent within it from the start."""
    from spark_cli.cli.edit.edit_settings import load
    from spark_cli.cli.tui_cmd import connect
    from spark_cli.session.conversation import Session
    from spark_cli.session.interaction import TurnEnded
    from spark_cli.session.workspace.store import SessionStore
    from spark_cli.tui.app import SparkApp, TuiSetup
    from spark_cli.tui.hud import Hud
    from spark_cli.tui.transcript.transcript import Transcript

    server = llama_server(2048)
    _config(shop_repo, server)
    env = _env(tmp_path)
    env.pop("NO_COLOR")  # textual's monochrome filter is not what is tested here
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for key in [k for k in os.environ if k.startswith("SPARK_") and k not in env]:
        monkeypatch.delenv(key)
    monkeypatch.delenv("NO_COLOR", raising=False)
    settings = load(shop_repo, {})
    session = Session(None, shop_repo, settings)
    app = SparkApp(TuiSetup(session=session, connect=connect, store=SessionStore(shop_repo)))
    ended: list[Any] = []
    async with app.run_test(size=(140, 30)) as pilot:
        sink = app.interaction.sink

        def record(event: Any) -> None:
            if isinstance(event, TurnEnded):
                ended.append(event)
            sink(event)

        app.interaction.sink = record
        for turn in (1, 2):
            await pilot.press(*"explain with_tax in pricing.py", "enter")
            await wait_until(lambda n=turn: len(ended) >= n, EDIT_TIMEOUT_S,
                             lambda n=turn: f"turn {n} ended; the transcript ends: "
                             f"{app.query_one(Transcript).plain_text()[-1500:]}")
            if turn == 1:
                text = app.query_one(Transcript).plain_text()
                assert "is larger than the model's window (2.0k)" in text, text[-2000:]
                await pilot.pause()
                assert "/2.0k" in app.query_one(Hud).shown
        text = app.query_one(Transcript).plain_text()
    assert session.settings.context_window == 2048
    assert text.count("larger than the model's window") == 1  # the second turn fit
    _python_intact(shop_repo)

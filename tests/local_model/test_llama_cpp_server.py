"""spark against llama.cpp's own ``llama-server`` (built from source, ``--jinja``; see conftest).

What differs from llama-cpp-python's server: ``/props`` states the window, so `spark config`
shows it before any request and a request is sized to it; its overflow answer is a 400
``exceed_context_size_error`` with ``n_prompt_tokens`` and ``n_ctx``; its log says how many
tokens each prompt had and how long it took to read (one request, the prefill waited out);
with ``--jinja`` it answers tool calls natively, and spark's tool loop runs them.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.local_model.forcing import ToolChoiceProxy
from tests.local_model.llama import (
    EXAMPLE,
    LLAMA_CPP,
    LLAMA_CPP_TOOLS,
    PYTHON,
    big_module,
    llama_server_missing,
)
from tests.local_model.test_llama_server import _config, _python_intact, spark

ON_LLAMA_CPP = pytest.mark.parametrize("llama_server", [LLAMA_CPP], indirect=True)
TIMER_AFTER_S = 5.0
"""``prefill_timer.FIRST_LINE_S``: a prefill longer than this shows a line in a log."""
CALL_TOKENS = 256
"""Room for a whole tool call (its JSON arguments) in the answer."""


def test_a_failed_build_is_the_skip_reason(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No binary, and .ci/build-llama-server's note beside bin/: the reason quotes its
    headline and the log's last words (no server needed)."""
    monkeypatch.setenv("SPARK_LLAMA_SERVER", str(tmp_path / "bin" / "llama-server"))
    (tmp_path / "llama-server.failed").write_text(
        "the llama-server build failed\n[ 97%] Building server.cpp.o\nc++: fatal error: Killed\n")
    said = llama_server_missing()
    assert said is not None and "the llama-server build failed" in said
    assert said.endswith("c++: fatal error: Killed)"), said
    (tmp_path / "llama-server.failed").unlink()
    assert "`make llama-server` builds it" in (llama_server_missing() or "")


@pytest.mark.parametrize("llama_server", [LLAMA_CPP, PYTHON], indirect=True)
def test_config_shows_the_window_before_any_request(llama_server: Any, shop_repo: Path,
                                                    tmp_path: Path) -> None:
    """A 2k server, nothing sent yet: llama-server's window is read from /props;
    llama-cpp-python's is said to be unknown, plainly."""
    server = llama_server(2048)
    _config(shop_repo, server)
    before = len(server.prompts()) if server.kind == LLAMA_CPP else 0
    done = spark(shop_repo, tmp_path, "config", "--json")
    assert done.returncode == 0, done.stderr
    said = json.loads(done.stdout)
    source = said["sources"]["context_window"]
    text = spark(shop_repo, tmp_path, "config").stdout
    line = next(ln for ln in text.splitlines() if ln.startswith("context_window"))
    if server.kind == LLAMA_CPP:
        assert said["settings"]["context_window"] == 2048, said
        assert "llama.cpp /props n_ctx" in source, source
        assert line.split()[1] == "2048" and "/props" in line, line
        assert server.prompts()[before:] == []  # asked, nothing sent to the model
    else:
        assert source.startswith("unknown: the server does not say"), source
        assert "unknown: the server does not say" in line, line


@ON_LLAMA_CPP
def test_a_small_edit_is_sent_within_the_stated_2k_window(llama_server: Any, shop_repo: Path,
                                                          tmp_path: Path) -> None:
    """The window from /props (2,048), a 35-line file: one request, within the window, that
    the server reads and answers (the edit applies or is named as no edit)."""
    server = llama_server(2048)
    _config(shop_repo, server)
    before = len(server.prompts())
    done = spark(shop_repo, tmp_path, "edit", "src/shop/cart.py", "-m",
                 "add a docstring to every function")
    said = done.stdout + done.stderr
    assert done.returncode in (0, 1, 5), said[-3000:]
    assert "larger than the model's window" not in said and "does not fit" not in said
    read = server.prompts_since(before, 1)
    assert len(read) == 1 and read[0][0] <= 2048, read
    _python_intact(shop_repo)


@ON_LLAMA_CPP
def test_an_overflow_is_named_with_the_servers_figures(llama_server: Any, shop_repo: Path,
                                                       tmp_path: Path) -> None:
    """A 2k server configured as 8k (nothing asked): the request is sized for 8k and sent;
    llama-server's 400 is named with both of its sizes, and the request sent once more
    within 2,048 tokens."""
    server = llama_server(2048)
    _config(shop_repo, server, context_window=8192)
    before = len(server.prompts())
    done = spark(shop_repo, tmp_path, "edit", "src/shop/pricing.py", "-m",
                 "add a docstring to with_tax")
    said = done.stdout + done.stderr
    assert "tokens) is larger than the model's window (2.0k)" in said, said[-3000:]
    assert "sending once more within 2,048 tokens" in said, said[-3000:]
    assert done.returncode in (0, 1, 5), said[-3000:]
    resent = server.prompts_since(before, 1)  # the overflow is no prompt read
    assert len(resent) == 1 and resent[0][0] <= 2048, resent
    _python_intact(shop_repo)


@ON_LLAMA_CPP
def test_a_long_prompt_is_sent_once_and_its_prefill_shown(llama_server: Any, shop_repo: Path,
                                                          tmp_path: Path) -> None:
    """8k window read from /props, a prompt of a few thousand tokens, ``idle_timeout = 1``:
    one request (the server read it once), the prefill line on stderr while it read."""
    server = llama_server(8192)
    _config(shop_repo, server, idle_timeout=1, tools=False)
    target = shop_repo / "src" / "shop" / "coupons.py"
    target.write_text(big_module("coupons", 40))
    original, before = target.read_text(), len(server.prompts())
    done = spark(shop_repo, tmp_path, "edit", "src/shop/coupons.py", "-m",
                 "add a docstring to coupons_step_3")
    assert done.returncode in (0, 1, 5), done.stderr[-3000:]
    assert "retry" not in done.stderr and "resending" not in done.stderr
    read = server.prompts_since(before, 1)
    assert len(read) == 1, read  # one request, read once
    tokens, seconds = read[0]
    assert tokens >= 2500, read
    if seconds > TIMER_AFTER_S + 1:
        assert "… prefill " in done.stderr, done.stderr[-3000:]
    _python_intact(shop_repo)
    if done.returncode != 0:  # nothing applied
        assert target.read_text() == original


@pytest.mark.parametrize("llama_server", [LLAMA_CPP_TOOLS], indirect=True)
def test_native_tool_calls_reach_the_tool_loop(llama_server: Any, tmp_path: Path) -> None:
    """``--jinja`` with a chat template that has tool calls: the turn's first request is
    forced to one call (the proxy), llama-server answers with OpenAI ``tool_calls`` parsed
    from the model's own text, and spark runs them in its tool loop and sends their outputs
    back: a second request, under the same window."""
    server = llama_server(8192)
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE, repo)  # no large modules: a short prompt
    proxy = ToolChoiceProxy(server.root)
    try:
        _config(repo, server, base_url=proxy.base_url, max_tool_calls=2, commands="off",
                max_output_tokens=CALL_TOKENS)
        before = len(server.prompts())
        done = spark(repo, tmp_path, "edit", "src/shop/pricing.py", "--json", "-m",
                     "read src/shop/cart.py, then add a docstring to with_tax")
    finally:
        proxy.close()
    said = done.stdout + done.stderr
    assert done.returncode in (0, 1, 5), said[-3000:]
    events = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    started = [e for e in events if e["type"] == "tool_call_started"]
    finished = [e for e in events if e["type"] == "tool_call_finished"]
    assert proxy.forced >= 1
    assert started, (said[-2000:], proxy.answered[0][-2000:])
    assert {e["name"] for e in started} <= {"read_file", "search", "list_files"}, started
    assert [e["call_id"] for e in finished] == [e["call_id"] for e in started], finished
    sent = [e for e in events if e["type"] == "request_sent"]
    assert len(sent) >= 2, events  # the outputs went back to the model
    assert len(server.prompts_since(before, len(sent))) == len(sent)
    _python_intact(repo)

"""`spark bench provider`: varied prompts of the asked sizes, prefill split from the first
token, the server's usage where sent (else "estimated"); against the bundled engine and a
scripted Chat Completions server (no timed assertions: figures are only printed)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from spark_cli.bench.provider.prompts import QUESTION, parse_size, prompt, size_label
from spark_cli.bench.provider.provider import bench_provider
from spark_cli.protocol.tokens import count_tokens
from tests.cli.edit.chat_script import ChatScript, chat_server


def test_prompts_have_the_size_asked_and_differ_per_repetition():
    for size in (1000, 4000):
        text = prompt(size, 0, seed=7)
        assert abs(count_tokens(text) - size) < 0.05 * size
        assert text.endswith(QUESTION + "\n")
        assert prompt(size, 1, seed=7) != text
        assert prompt(size, 1, seed=7).splitlines()[0] != text.splitlines()[0]  # no shared prefix
    assert prompt(1000, 0, same=True, seed=7) == prompt(1000, 5, same=True, seed=7)


def test_sizes():
    assert [parse_size(w) for w in ("1k", "16K", "512", "1.5k")] == [1000, 16000, 512, 1500]
    assert size_label(16000) == "16k" and size_label(512) == "512"
    with pytest.raises(ValueError):
        parse_size("0")


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(tmp_path / "no-user-config"))
    for name in list(os.environ):
        if name.startswith("SPARK_") and name != "SPARK_CONFIG_DIR":
            monkeypatch.delenv(name)
    return tmp_path


def test_against_the_bundled_engine(clean_env: Path, capsys: pytest.CaptureFixture[str]):
    docs = clean_env / "benchmarks.md"
    code = bench_provider(None, base_url=None, model=None, sizes="300,1k", reps=1, tokens=16,
                          same=False, ttft_ms=20, tps=2000, docs=docs)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "the bundled engine in its own process (--brain lorem --ttft-ms 20" in out
    assert "| prompt | prompt tokens | prefill | first token | TTFT |" in out
    assert "Chat Completions, SSE:" in out and "Responses, WebSocket:" in out
    rows = [line for line in out.splitlines() if line.startswith(("| 300 ", "| 1k "))]
    assert len(rows) == 4 and all("(server)" in row for row in rows)
    assert "## Provider" in docs.read_text()


def test_a_server_without_usage_is_estimated_and_prompts_vary(
        clean_env: Path, capsys: pytest.CaptureFixture[str]):
    script = ChatScript("A module of small helper functions.")
    with chat_server(script) as url:
        code = bench_provider("openai-compatible", base_url=url, model="m", sizes="200",
                              reps=3, tokens=16, same=False, ttft_ms=0, tps=1, docs=None)
        out = capsys.readouterr().out
        assert code == 0, out
        assert "| 200 | " in out and "(estimated)" in out and "(server)" not in out
        measured = [r["messages"][0]["content"] for r in script.requests[1:]]  # type: ignore[index]
        assert len(measured) == 3 and len(set(measured)) == 3
        script.requests.clear()
        bench_provider("openai-compatible", base_url=url, model="m", sizes="200", reps=3,
                       tokens=16, same=True, ttft_ms=0, tps=1, docs=None)
        same = [r["messages"][0]["content"] for r in script.requests[1:]]  # type: ignore[index]
        assert len(same) == 3 and len(set(same)) == 1

"""`spark bench tls`: `spark edit` over TLS through the relay, paired with a baseline tree,
and the strace counts (structure only: no timed assertions)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spark_cli.bench.tls_reads import TRACED, measure, table


def test_both_trees_read_a_whole_answer_over_tls(tmp_path: Path) -> None:
    import spark_cli

    tree = Path(spark_cli.__file__).resolve().parent.parent
    figures = measure(reps=1, tokens=40, tps=20000.0, workdir=tmp_path,
                      wires=("responses_ws", "chat_sse"), baseline=tree)
    assert set(figures) == {(w, t) for w in ("responses_ws", "chat_sse")
                            for t in ("spark", "baseline")}
    for f in figures.values():
        assert len(f.cpu_s) == 1 and f.cpu_s[0] > 0 and f.minor_faults[0] > 0
        assert f.syscalls == {}
    rendered = table(figures)
    assert "| Chat Completions, SSE | baseline |" in rendered and "—" in rendered


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_the_strace_run_counts_the_reads(tmp_path: Path) -> None:
    figures = measure(reps=1, tokens=40, tps=20000.0, workdir=tmp_path, wires=("chat_sse",),
                      strace=True, fixed_threshold=True)
    counts = figures[("chat_sse", "spark")].syscalls
    assert set(counts) == set(TRACED)
    assert counts["recvfrom"] > 0 and counts["mmap"] > 0


def test_a_child_that_cannot_connect_is_an_error(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_cli.bench import tls_reads

    def untrusted(*args: object) -> tuple[list[str], dict[str, str]]:
        argv, env = real(*args)  # type: ignore[arg-type]
        env["SSL_CERT_FILE"] = str(tmp_path / "missing.pem")
        return argv, env

    real = tls_reads._child
    monkeypatch.setattr(tls_reads, "_child", untrusted)
    with pytest.raises(RuntimeError, match="did not read the whole answer"):
        measure(reps=1, tokens=40, tps=20000.0, workdir=tmp_path, wires=("chat_sse",))

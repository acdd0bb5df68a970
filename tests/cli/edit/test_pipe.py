"""The pipe filter: stdout is the file, prose on stderr, nothing written, refusal = original."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.edit.edit_run import UsageError
from spark_cli.cli.edit.pipe_mode import stdin_file_name
from spark_cli.cli.main import app

PY = 'def total_price(items):\n    return sum(items)\n\n\nprint(total_price([1, 2]))\n'
JS = 'function hello(name) {\n  console.log("hi", name);\n  return name;\n}\n'


@pytest.fixture
def cwd(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    work = tmp_path / "work"
    work.mkdir()
    config = tmp_path / "config"
    config.mkdir()
    monkeypatch.setenv("SPARK_CONFIG_DIR", str(config))
    for key in ("OPENAI_API_KEY", "CEREBRAS_API_KEY", "SPARK_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    monkeypatch.chdir(work)
    return work


# ---- language → temp file name ----


@pytest.mark.parametrize(
    ("lang", "text", "name"),
    [
        (None, PY, "stdin.py"),
        (None, JS, "stdin.js"),
        (None, '{"a": 1}\n', "stdin.json"),
        (None, "just some words\n", "stdin.txt"),
        (None, "#!/usr/bin/env python3\nx = 1\n", "stdin.py"),
        ("javascript", PY, "stdin.js"),
        ("py", "whatever\n", "stdin.py"),
        ("TS", "x\n", "stdin.ts"),
        ("text", PY, "stdin.txt"),
    ],
)
def test_language_picks_the_extension(lang: str | None, text: str, name: str):
    assert stdin_file_name(lang, text) == name


def test_unknown_lang_is_a_usage_error():
    with pytest.raises(UsageError, match="not a known language"):
        stdin_file_name("cobol", "x")


# ---- usage errors: exit 2, nothing on stdout ----


@pytest.mark.parametrize(
    ("args", "stdin", "needle"),
    [
        (["-m", "x"], b"\x00\x01\x02binary", "binary"),
        (["-m", "x", "--lang", "cobol"], PY.encode(), "not a known language"),
        (["-m", "x", "--test"], PY.encode(), "pipe mode never runs tests"),
    ],
)
def test_pipe_usage_errors(cwd: Path, args: list[str], stdin: bytes, needle: str):
    result = CliRunner().invoke(app, ["edit", *args], input=stdin)
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    assert needle in result.stderr
    assert list(cwd.iterdir()) == []


# ---- real pipes (subprocess): the bundled engine, in-process ----


def _spark(args: list[str], stdin: bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "NO_COLOR": "1"}
    return subprocess.run([sys.executable, "-m", "spark_cli", "edit", *args], input=stdin,
                          capture_output=True, cwd=cwd, env=env, timeout=60)


def test_pipe_rename_writes_the_edited_file_to_stdout_only(cwd: Path):
    done = _spark(["-m", "rename total_price to grand_total"], PY.encode(), cwd)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == PY.replace("total_price", "grand_total")
    err = done.stderr.decode()
    assert "TTFT" in err and "+def grand_total(items):" in err
    assert list(cwd.iterdir()) == []  # nothing written in cwd


def test_pipe_with_lang_for_javascript(cwd: Path):
    done = _spark(["--lang", "javascript", "-m", "remove console.log"], JS.encode(), cwd)
    assert done.returncode == 0, done.stderr.decode()
    assert "console.log" not in done.stdout.decode()
    assert "return name;" in done.stdout.decode()


def test_pipe_refused_exits_1_with_the_original_on_stdout(cwd: Path):
    done = _spark(["-m", "replace 'return sum(items)' with 'return (sum(items'"], PY.encode(),
                  cwd)
    assert done.returncode == 1, done.stderr.decode()
    assert done.stdout == PY.encode()
    assert "refused" in done.stderr.decode()
    assert list(cwd.iterdir()) == []


def test_pipe_keeps_crlf_bytes(cwd: Path):
    crlf = PY.replace("\n", "\r\n").encode()
    done = _spark(["-m", "rename total_price to grand_total"], crlf, cwd)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout == crlf.replace(b"total_price", b"grand_total")


def test_pipe_ignores_an_untrusted_project_config_in_one_line(cwd: Path):
    (cwd / ".spark").mkdir()
    (cwd / ".spark" / "config.toml").write_text('edit_format = "apply_patch"\n')
    done = _spark(["-m", "rename total_price to grand_total"], PY.encode(), cwd)
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == PY.replace("total_price", "grand_total")
    notes = [line for line in done.stderr.decode().splitlines() if "project files" in line]
    assert len(notes) == 1 and ".spark/config.toml" in notes[0] and "spark trust" in notes[0]

"""The typer-free reading of `spark edit` lines agrees with typer, and declines the rest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.edit import edit_cmd
from spark_cli.cli.edit.edit_args import EditArgs, parse_edit_args
from spark_cli.cli.main import app
from spark_cli.transport.fast import on

PLAIN = [
    ["app.py", "-m", "rename x"],
    ["-m", "rename x", "app.py", "lib.py"],
    ["app.py", "--message=fix it", "--json", "--dry-run"],
    ["a.py", "-m", "x", "--provider", "openai-compatible", "--model", "m", "--base-url",
     "http://127.0.0.1:9/v1", "--max-output-tokens", "50", "--format", "apply_patch",
     "--allow-syntax-errors", "--test", "--root", "sub"],
    ["-m", "x", "--lang", "python"],
    ["-m", "first", "-m", "second", "a.py"],  # the last value wins, as in click
    ["-m", "x", "--", "-odd-name.py", "--json"],
    ["-m", "", "-"],
    ["--max-output-tokens=7", "-m", "x", "a.py"],
]
DECLINED = [
    ["--help"],
    ["app.py"],  # -m missing: typer's message
    ["app.py", "-m"],  # no value
    ["app.py", "-m", "-starts-with-dash"],
    ["app.py", "-mfused"],
    ["app.py", "-m", "x", "--jsn"],
    ["app.py", "-m", "x", "--json=1"],
    ["app.py", "-m", "x", "--max-output-tokens", "0"],
    ["app.py", "-m", "x", "--max-output-tokens", "ten"],
    ["app.py", "-m", "x", "--base"],  # unknown: click has no abbreviations, it suggests
    ["app.py", "-m", "x", "-z"],
]


def typer_args(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> EditArgs:
    seen: list[EditArgs] = []

    def capture(args: EditArgs) -> None:
        seen.append(args)
        raise SystemExit(0)

    monkeypatch.setattr(edit_cmd, "run_edit", capture)
    result = CliRunner().invoke(app, ["edit", *argv])
    assert result.exit_code == 0, result.output
    return seen[0]


@pytest.mark.parametrize("argv", PLAIN)
def test_a_plain_line_reads_as_typer_reads_it(argv: list[str],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    fast = parse_edit_args(argv)
    assert fast is not None
    assert fast == typer_args(argv, monkeypatch)


@pytest.mark.parametrize("argv", DECLINED)
def test_anything_else_is_left_to_typer(argv: list[str]) -> None:
    assert parse_edit_args(argv) is None


def test_values_are_typed_as_typer_types_them() -> None:
    args = parse_edit_args(["-m", "x", "--root", "sub", "--max-output-tokens", "12"])
    assert args is not None and args.root == Path("sub") and args.max_output_tokens == 12


@pytest.mark.skipif(not on("edit_args"), reason="SPARK_PLAIN: typer reads every line")
def test_a_plain_spark_edit_never_imports_typer_or_click(tmp_path: Path) -> None:
    code = ("import sys\n"
            "from spark_cli.cli import entry\n"
            "from spark_cli.cli.edit import edit_cmd\n"
            "edit_cmd.run_edit = lambda args: print(','.join(m for m in sys.modules"
            " if m.split('.')[0] in ('typer', 'click', 'rich', 'pydantic'))) or sys.exit(0)\n"
            "sys.argv = ['spark', 'edit', 'app.py', '-m', 'x', '--json']\n"
            "entry.run()\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""

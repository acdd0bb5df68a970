"""`spark --version` and `spark --help` answer without Textual or the benchmarks; the
`bench` group still builds its commands when it is used."""

from __future__ import annotations

import subprocess
import sys

import pytest

from spark_cli import __version__
from spark_cli.cli.bench_cmd import BENCH_MODULES

MARK = "--modules--"


def _spark(*args: str) -> tuple[str, set[str]]:
    """What `spark ARGS` prints, and the modules loaded when it is done."""
    code = ("import sys\n"
            f"sys.argv = ['spark', *{list(args)!r}]\n"
            "from spark_cli.cli.entry import run\n"
            "try:\n"
            "    run()\n"
            "finally:\n"
            "    print(MARK, *sorted(sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", f"MARK = {MARK!r}\n" + code],
                          capture_output=True, text=True, timeout=60, check=True)
    out, _, modules = done.stdout.partition(MARK)
    return out, set(modules.split())


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules
                  if m.split(".")[0] == "textual" or m.startswith("spark_cli.bench"))


def test_version_imports_no_textual_no_bench_and_not_typer() -> None:
    out, modules = _spark("--version")
    assert out == f"spark {__version__}\n"
    assert "spark_cli.cli.entry" in modules
    assert _heavy(modules) == [] and "typer" not in modules


@pytest.mark.parametrize("args", [("--help",), ("edit", "--help")])
def test_help_imports_no_textual_and_no_bench(args: tuple[str, ...]) -> None:
    out, modules = _spark(*args)
    assert "Usage:" in out
    assert _heavy(modules) == []


def test_bench_help_lists_every_benchmark() -> None:
    out, modules = _spark("bench", "--help")
    assert "oneshot" in out and "stream" in out
    assert {f"spark_cli.bench.{name}" for name in BENCH_MODULES} <= modules

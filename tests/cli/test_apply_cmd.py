"""`spark apply`: stdin and file input, --check, --json, exit codes 0/1/2, colour on a TTY."""

from __future__ import annotations

import io
import json

import pytest
import typer
from typer.testing import CliRunner

from spark_cli.cli import apply_cmd

PY = 'def greet(name):\n    return "hello " + name\n'
GOOD = ('app.py\n<<<<<<< SEARCH\n    return "hello " + name\n=======\n'
        '    return "hi " + name\n>>>>>>> REPLACE\n')
MISSING = 'other.py\n<<<<<<< SEARCH\nnot there\n=======\nx = 1\n>>>>>>> REPLACE\n'
BROKEN = ('app.py\n<<<<<<< SEARCH\n    return "hello " + name\n=======\n'
          '    return ("hi " + name\n>>>>>>> REPLACE\n')


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """spark (test)"""

    apply_cmd.register(app)
    return app


@pytest.fixture
def repo(tmp_path):
    (tmp_path / "app.py").write_text(PY)
    (tmp_path / "other.py").write_text("y = 2\n")
    return tmp_path


def run(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(_app(), args, input=stdin)


def test_piped_stdin_applies_and_prints_plain_diff(repo) -> None:
    result = run(["apply", "--root", str(repo)], GOOD)
    assert result.exit_code == 0, result.output
    assert (repo / "app.py").read_text() == PY.replace('"hello "', '"hi "')
    assert '-    return "hello " + name' in result.output
    assert "\x1b[" not in result.output
    assert "undo with: spark undo" in result.output


def test_patch_file_argument(repo, tmp_path_factory) -> None:
    patch = tmp_path_factory.mktemp("p") / "edit.patch"
    patch.write_text("*** Begin Patch\n*** Update File: other.py\n@@\n-y = 2\n+y = 3\n"
                     "*** End Patch\n")
    result = run(["apply", str(patch), "--root", str(repo)])
    assert result.exit_code == 0, result.output
    assert (repo / "other.py").read_text() == "y = 3\n"


def test_check_is_a_dry_run(repo) -> None:
    result = run(["apply", "-", "--check", "--root", str(repo)], GOOD)
    assert result.exit_code == 0, result.output
    assert "would apply" in result.output
    assert (repo / "app.py").read_text() == PY
    assert not (repo / ".spark").exists()


def test_refusal_exits_1_and_reports_what_applied(repo) -> None:
    result = run(["apply", "--root", str(repo)], GOOD + "\n" + MISSING)
    assert result.exit_code == 1, result.output
    assert "refused: " in result.output and "other.py" in result.output
    assert "applied 1 of 2" in result.output
    assert (repo / "app.py").read_text() != PY  # the good block stays applied
    assert (repo / "other.py").read_text() == "y = 2\n"


def test_json_lines(repo) -> None:
    result = run(["apply", "--json", "--root", str(repo)], GOOD + "\n" + MISSING)
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert [r["type"] for r in rows] == ["edit_applied", "edit_refused", "summary"]
    assert rows[0]["path"] == "app.py" and rows[0]["diff"]
    assert rows[1]["hunk_index"] == 1 and rows[1]["message"]
    assert rows[2]["applied"] == 1 and rows[2]["refused"] == 1 and rows[2]["batch"]


def test_syntax_refused_then_allowed(repo) -> None:
    result = run(["apply", "--root", str(repo)], BROKEN)
    assert result.exit_code == 1 and "syntax error" in result.output
    assert (repo / "app.py").read_text() == PY
    result = run(["apply", "--allow-syntax-errors", "--root", str(repo)], BROKEN)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("text", ["just some prose, no blocks\n",
                                  "*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n",
                                  "app.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n"])
def test_no_well_formed_block_exits_2_and_applies_nothing(repo, text) -> None:
    result = run(["apply", "--root", str(repo)], text)
    assert result.exit_code == 2, result.output
    assert "nothing was applied" in result.output
    assert (repo / "app.py").read_text() == PY


@pytest.mark.parametrize("bad", ["*** Begin Patch\n*** Frobnicate File: x\n*** End Patch\n",
                                 "other.py\n<<<<<<< SEARCH\ny = 2\n>>>>>>> REPLACE\n",
                                 "other.py\n<<<<<<< SEARCH\ny = 2\n=======\n"])
def test_a_malformed_block_does_not_stop_the_others(repo, bad) -> None:
    # as in a session: each block on its own; the malformed one (here also a block cut
    # off by the end of the answer) is reported and makes the exit code 1
    result = run(["apply", "--root", str(repo)], GOOD + "\n" + bad)
    assert result.exit_code == 1, result.output
    assert (repo / "app.py").read_text() == PY.replace('"hello "', '"hi "')
    assert (repo / "other.py").read_text() == "y = 2\n"
    assert "parse error" in result.output and "1 malformed block(s) skipped" in result.output


def test_json_parse_errors_carry_their_line_and_path(repo) -> None:
    text = "Intro.\napp.py\n<<<<<<< SEARCH\nx\n>>>>>>> REPLACE\n"
    result = run(["apply", "--json", "--root", str(repo)], text)
    assert result.exit_code == 2
    error, summary = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert error["type"] == "parse_error" and error["line"] == 5 and error["path"] == "app.py"
    assert summary["parse_errors"] == 1
    result = run(["apply", "--json", "--root", str(repo)], "no blocks here\n")
    assert json.loads(result.output.splitlines()[0])["line"] is None
    result = run(["apply", "--json", "--root", str(repo)], text + GOOD)
    assert result.exit_code == 1
    rows = [json.loads(line) for line in result.output.splitlines() if line.strip()]
    assert [r["type"] for r in rows] == ["parse_error", "edit_applied", "summary"]
    assert rows[-1]["parse_errors"] == 1 and rows[-1]["applied"] == 1


def test_usage_errors_exit_2(repo) -> None:
    assert run(["apply", str(repo / "no-such.patch"), "--root", str(repo)]).exit_code == 2
    assert run(["apply", "--root", str(repo / "nope")], GOOD).exit_code == 2


def test_colour_on_a_terminal(repo) -> None:
    out = io.StringIO()
    code = apply_cmd.run_apply(GOOD, repo, out=out, color=True)
    assert code == 0
    assert "\x1b[" in out.getvalue()


def test_identical_blocks_one_per_place_count_as_applied(tmp_path) -> None:
    (tmp_path / "rep.py").write_text("x = 1\ny = 2\nx = 1\n")
    block = "rep.py\n<<<<<<< SEARCH\nx = 1\n=======\nx = 10\n>>>>>>> REPLACE\n"
    result = run(["apply", "--root", str(tmp_path), "--json"], block + "\n" + block)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep.py").read_text() == "x = 10\ny = 2\nx = 10\n"
    summary = json.loads(result.output.splitlines()[-1])
    assert summary["refused"] == 0, summary  # the first copy's refusal was superseded
    text = run(["apply", "--root", str(tmp_path), "--check"],
               block.replace("x = 1\n=", "x = 10\n=").replace("x = 10\n>", "x = 3\n>") * 2)
    assert text.exit_code == 0, text.output
    assert "refused" not in text.output.splitlines()[-1]


def test_a_read_only_file_is_refused_unless_forced(repo) -> None:
    (repo / "app.py").chmod(0o444)
    result = run(["apply", "--root", str(repo)], GOOD)
    assert result.exit_code == 1
    assert "app.py is read-only (mode 0444)" in result.output
    assert "--force-read-only" in result.output
    assert (repo / "app.py").read_text() == PY
    result = run(["apply", "--force-read-only", "--root", str(repo)], GOOD)
    assert result.exit_code == 0, result.output
    assert (repo / "app.py").read_text() == PY.replace('"hello "', '"hi "')
    assert (repo / "app.py").stat().st_mode & 0o777 == 0o444  # its mode is kept

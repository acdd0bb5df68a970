"""`spark undo`: restore the last batch, --list, refusal when changed, --force."""

from __future__ import annotations

import typer
from typer.testing import CliRunner

from spark_cli.cli import apply_cmd, undo_cmd

EDIT = "a.txt\n<<<<<<< SEARCH\none\n=======\ntwo\n>>>>>>> REPLACE\n"


def _app() -> typer.Typer:
    app = typer.Typer()

    @app.callback()
    def _root() -> None:
        """spark (test)"""

    apply_cmd.register(app)
    undo_cmd.register(app)
    return app


def run(args: list[str], stdin: str | None = None):
    return CliRunner().invoke(_app(), args, input=stdin)


def test_apply_then_list_then_undo(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    assert run(["apply", "--root", str(tmp_path)], EDIT).exit_code == 0
    listed = run(["undo", "--list", "--root", str(tmp_path)])
    assert listed.exit_code == 0 and "spark apply" in listed.output and "a.txt" in listed.output
    result = run(["undo", "--root", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "restored a.txt" in result.output
    assert (tmp_path / "a.txt").read_text() == "one\n"
    assert "no recorded batches" in run(["undo", "--list", "--root", str(tmp_path)]).output


def test_nothing_to_undo_exits_1(tmp_path) -> None:
    result = run(["undo", "--root", str(tmp_path)])
    assert result.exit_code == 1 and "nothing to undo" in result.output


def test_changed_file_refused_unless_forced(tmp_path) -> None:
    (tmp_path / "a.txt").write_text("one\n")
    assert run(["apply", "--root", str(tmp_path)], EDIT).exit_code == 0
    (tmp_path / "a.txt").write_text("user edit\n")
    refused = run(["undo", "--root", str(tmp_path)])
    assert refused.exit_code == 1 and "a.txt" in refused.output and "--force" in refused.output
    assert (tmp_path / "a.txt").read_text() == "user edit\n"
    forced = run(["undo", "--force", "--root", str(tmp_path)])
    assert forced.exit_code == 0
    assert (tmp_path / "a.txt").read_text() == "one\n"

"""`spark commands`: every prompt file and skill with the file it comes from; a broken one is
listed as broken; an untrusted repo's folders are named on stderr and left out."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from spark_cli.cli.main import app


def test_it_lists_commands_and_skills_and_names_the_untrusted_repo(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, user = tmp_path / "repo", tmp_path / "user"
    (root / ".claude/commands").mkdir(parents=True)
    (root / ".claude/commands/lint.md").write_text("Lint\n")
    (user / "commands/git").mkdir(parents=True)
    (user / "commands/git/log.md").write_text("---\ndescription: Recent history\n---\nx\n")
    (user / "commands/test.md").write_text("---\ndescription: [\n---\n")
    (tmp_path / "home/.agents/skills/pdf").mkdir(parents=True)
    (tmp_path / "home/.agents/skills/pdf/SKILL.md").write_text("---\ndescription: PDFs\n---\n")
    for key, value in (("SPARK_CONFIG_DIR", user), ("SPARK_STATE_DIR", tmp_path / "st"),
                       ("HOME", tmp_path / "home")):
        monkeypatch.setenv(key, str(value))
    result = CliRunner().invoke(app, ["commands", "--root", str(root)])
    assert result.exit_code == 0
    lines = result.stdout.splitlines()
    assert lines[0].split() == ["/git:log", "Recent", "history"]
    assert lines[1].strip() == str(user / "commands/git/log.md")
    assert lines[2].startswith("/user:test") and "BROKEN: front matter:" in lines[2]
    assert lines[4].split() == ["$pdf", "PDFs"]
    assert "lint" not in result.stdout
    assert "ignoring the project files" in result.stderr and "spark trust" in result.stderr

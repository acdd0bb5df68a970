"""Skills: where they come from (the repo's only under trust), their lines, `$name`, and the
one thing outside the repo the tools may read: a skill's folder."""

from __future__ import annotations

from pathlib import Path

from spark_cli.session.config.trust import set_trust, trust_state
from spark_cli.session.extensions.skills import (
    attach_skills,
    load_skills,
    outside_folders,
    skills_text,
)
from spark_cli.tools.run import run_tool


def _skill(folder: Path, text: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(text)
    return folder / "SKILL.md"


def test_skills_from_the_repo_wait_for_trust_and_a_broken_one_is_named(tmp_path: Path) -> None:
    root, home = tmp_path / "repo", tmp_path / "home"
    env = {"HOME": str(home), "SPARK_STATE_DIR": str(tmp_path / "st")}
    _skill(root / ".claude/skills/pdf", "---\nname: pdf\ndescription: Read PDFs\n---\nbody\n")
    _skill(root / ".agents/skills/bad", "---\nname: [\n---\n")
    user = _skill(home / ".agents/skills/mine", "---\ndescription: My own\n---\nMine.\n")
    assert [s.name for s in load_skills(root, env)] == ["mine"]
    set_trust(trust_state(root, env), True, env)
    skills = load_skills(root, env)
    assert [(s.name, s.path) for s in skills] == [
        ("bad", ".agents/skills/bad/SKILL.md"), ("mine", str(user)),
        ("pdf", ".claude/skills/pdf/SKILL.md")]
    assert skills[0].problem.startswith("front matter:")
    assert skills_text(skills).splitlines()[1:] == [
        f"- mine: My own ({user})", "- pdf: Read PDFs (.claude/skills/pdf/SKILL.md)"]
    assert outside_folders(skills, root) == [f"outside:{user.parent}"]
    assert attach_skills("use $mine, not $bad or a$mine", skills) == (
        f"use $mine, not $bad or a$mine\n\nThe skill $mine ({user}):\n---\n"
        "description: My own\n---\nMine.")


def test_only_files_inside_a_skill_folder_are_readable_outside_the_repo(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    skill = _skill(tmp_path / "skills/a", "body of a\n")
    (tmp_path / "skills/a/ref.md").write_text("more\n")
    (tmp_path / "skills/secret.txt").write_text("no\n")
    (tmp_path / "skills/a/link.md").symlink_to(tmp_path / "skills/secret.txt")
    folders = [f"outside:{skill.parent}", "/", str(tmp_path)]  # absolute: as ever, nothing

    def read(path: Path) -> str:
        return run_tool(root, "read_file", f'{{"path": "{path}"}}', readable=folders).output

    assert "body of a" in read(skill) and "more" in read(tmp_path / "skills/a/ref.md")
    assert "absolute paths are refused" in read(tmp_path / "skills/secret.txt")
    assert "absolute paths are refused" in read(tmp_path / "skills/a/link.md")
    assert "absolute paths are refused" in read(tmp_path / "skills/a/../secret.txt")
    assert "absolute paths are refused" in run_tool(
        root, "read_file", f'{{"path": "{skill}"}}').output  # not a skill: not readable

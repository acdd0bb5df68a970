"""Skills: folders with a ``SKILL.md`` (front matter ``name``, ``description``), as Codex and
Claude Code read them: one line each in the instructions; ``$name`` in a message attaches the
body. A skill folder outside the repo is readable by the tools (docs/extensions.md).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from spark_cli.record import record
from spark_cli.session.config.settings import Settings
from spark_cli.session.context.targets import RequestError
from spark_cli.session.extensions.hooks import Hooks
from spark_cli.session.extensions.prompt_files import home, read_front, readable_folders

PROJECT_SKILLS = (".agents/skills", ".claude/skills")
SKILL_FILE = "SKILL.md"
HEAD = ("Skills: when one applies to the task, read its SKILL.md with read_file (at the path "
        "given) and follow it.")
_MENTION = re.compile(r"(?<![\w$])\$([A-Za-z0-9][\w.-]*)")


@record
class Skill:
    """One skill: ``path`` is its SKILL.md as the instructions give it; ``folder`` absolute."""

    name: str
    description: str
    path: str
    folder: str
    problem: str = ""


def load_skills(root: Path, env: Mapping[str, str] | None = None) -> list[Skill]:
    """Every skill (first wins on a name), sorted by name."""
    env = os.environ if env is None else env
    root = Path(root)
    folders = [(root / f, True) for f in PROJECT_SKILLS] + [(home(env) / ".agents/skills", False)]
    found: dict[str, Skill] = {}
    for folder in readable_folders(root, env, folders):
        for skill_md in sorted(folder.glob(f"*/{SKILL_FILE}")):
            meta, _, problem = read_front(skill_md)
            shown = skill_md.relative_to(root).as_posix() if folder.is_relative_to(root) \
                else str(skill_md)
            name = " ".join(str(meta.get("name") or skill_md.parent.name).split())
            found.setdefault(name, Skill(name, " ".join(str(meta.get("description") or "").split()),
                                         shown, str(skill_md.parent), problem))
    return sorted(found.values(), key=lambda s: s.name)


def skills_text(skills: list[Skill]) -> str:
    """The instructions' paragraph: one line per usable skill ("" when none)."""
    lines = [f"- {s.name}: {s.description} ({s.path})" for s in skills if not s.problem]
    return "\n".join([HEAD, *lines]) if lines else ""


def outside_folders(skills: list[Skill], root: Path) -> list[str]:
    """The skill folders outside the repo, as entries of ``readable`` the tools may read."""
    from spark_cli.tools.access import OUTSIDE  # deferred: launch -> request

    return [OUTSIDE + s.folder for s in skills if os.path.isabs(s.path) and not s.problem
            and not Path(s.folder).is_relative_to(root)]


def attach_skills(text: str, skills: list[Skill]) -> str:
    """``text`` and, for each ``$name`` in it that names a skill, that skill's SKILL.md whole."""
    by_name = {s.name: s for s in skills if not s.problem}
    named = [by_name[n] for n in dict.fromkeys(_MENTION.findall(text)) if n in by_name]
    bodies = []
    for skill in named:
        try:
            body = (Path(skill.folder) / SKILL_FILE).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        bodies.append(f"\n\nThe skill ${skill.name} ({skill.path}):\n{body.rstrip()}")
    return text + "".join(bodies)


async def submitted(hooks: Hooks, settings: Settings, readable: list[str], text: str, *,
                    first: bool) -> str:
    """A message with its ``$skill`` bodies and what prompt hooks add (``RequestError``: one
    blocked it); the skill folders outside the repo join ``readable``."""
    hooks.secrets, skills = settings.provider.secrets.values, load_skills(hooks.root)
    readable.extend(set(outside_folders(skills, hooks.root)) - set(readable))
    text, blocked = await hooks.prompt(attach_skills(text, skills), first)
    if blocked is not None:
        raise RequestError("hook", f"a UserPromptSubmit hook blocked the message: {blocked}")
    return text

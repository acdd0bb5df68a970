"""The slash commands that send a prompt: the user's Markdown prompt files with a front matter,
as Claude Code and Codex keep them (folders, names, ``$ARGUMENTS``, ``!`cmd``` lines:
docs/extensions.md; the front matter and trusted-folder reading skills share), and ``/init``'s
ask for a first AGENTS.md (the model writes it as an undoable edit)."""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Collection, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from spark_cli.checks.detect import detect_test_command
from spark_cli.protocol.agents_file import AGENTS_FILE, INIT_HEAD, LAYOUT_HEAD, TEST_HEAD
from spark_cli.record import record
from spark_cli.session.config.layers import user_config_path
from spark_cli.session.config.trust import trust_state

if TYPE_CHECKING:
    from spark_cli.session.actions.orchestrator import Orchestrator

PROJECT_COMMANDS = (".spark/commands", ".claude/commands")
_ARG = re.compile(r"\$(ARGUMENTS|[1-9])")
_BANG = re.compile(r"!`([^`]+)`")
_PLAIN = re.compile(r"([A-Za-z][\w-]*):[ \t]+([^\s\[\]{}\"'|>&*!%@`#][^#]*|)")
"""A front-matter line YAML reads as a plain string (a key, then text that starts with
nothing YAML gives a meaning: no quote, bracket, block or anchor sign, no comment)."""
BANG_BUDGET = 8_000
MAX_BYTES = 256 * 1024
MOST_ENTRIES = 40


@record
class PromptCommand:
    """One prompt file: its command ``name`` (no slash), where it is, its front matter."""

    name: str
    path: str
    description: str = ""
    argument_hint: str = ""
    model: str = ""
    body: str = ""
    problem: str = ""
    """Why it cannot be used (broken front matter, unreadable, a name already taken)."""


def readable_folders(root: Path, env: Mapping[str, str],
                     folders: list[tuple[Path, bool]]) -> Iterator[Path]:
    """The ``(folder, from the repo)`` that exist, a repo's only under the project's trust."""
    trusted: bool | None = None
    for folder, repo in folders:
        if repo and folder.is_dir() and trusted is None:
            trusted = trust_state(root, env).trusted
        if folder.is_dir() and (trusted or not repo):
            yield folder


def read_front(path: Path) -> tuple[dict[str, object], str, str]:
    """A file's front matter, its body, and why it cannot be used ("" when it can)."""
    try:
        with path.open("rb") as handle:
            return (*front_matter(handle.read(MAX_BYTES).decode("utf-8")), "")
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        why = exc.strerror if isinstance(exc, OSError) else str(exc)
        return {}, "", why or "cannot be read"


def front_matter(text: str) -> tuple[dict[str, object], str]:
    """The YAML front matter and the body; ``ValueError`` says what is wrong with it."""
    lines = text.split("\n")
    if lines[0].strip() != "---":
        return {}, text
    end = next((i for i, line in enumerate(lines[1:], 1) if line.strip() == "---"), 0)
    if not end:
        raise ValueError("front matter: no closing '---' line")
    plain = [_PLAIN.fullmatch(line) for line in lines[1:end] if line.strip()]
    if all(plain):  # "key: text" lines only (the usual): no YAML parser on the way to a request
        meta = {m.group(1): m.group(2).strip() for m in plain if m is not None}
        return meta, "\n".join(lines[end + 1:]).lstrip("\n")
    import yaml  # deferred: only a front matter beyond "key: text" lines pays for it

    try:
        data = yaml.safe_load("\n".join(lines[1:end])) or {}
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 2})" if mark is not None else ""
        raise ValueError(f"front matter: {getattr(exc, 'problem', None) or exc}{where}") from None
    if not isinstance(data, dict):
        raise ValueError("front matter: not a mapping of keys")
    return data, "\n".join(lines[end + 1:]).lstrip("\n")


def home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or os.path.expanduser("~"))


def load_commands(root: Path, reserved: Collection[str] = (),
                  env: Mapping[str, str] | None = None) -> list[PromptCommand]:
    """Every prompt file, sorted by name (untrusted project folders left out)."""
    env = os.environ if env is None else env
    codex = Path(env.get("CODEX_HOME") or home(env) / ".codex") / "prompts"
    folders = [*((Path(root) / f, True) for f in PROJECT_COMMANDS),
               (user_config_path(env).parent / "commands", False), (codex, False)]
    found: dict[str, PromptCommand] = {}
    extra: list[PromptCommand] = []
    for folder in readable_folders(root, env, folders):
        prefix = "prompts:" if folder == codex else ""
        for path in sorted(folder.rglob("*.md")):
            name = prefix + path.relative_to(folder).with_suffix("").as_posix().replace("/", ":")
            name = f"user:{name}" if name.lower() in reserved else name
            if name in found:
                extra.append(PromptCommand(name, str(path),
                                           problem=f"not used: {found[name].path} has the name"))
                continue
            meta, body, problem = read_front(path)
            field = {k: " ".join(str(v).split()) for k, v in meta.items() if v is not None}
            found[name] = PromptCommand(name, str(path), field.get("description", ""),
                                        field.get("argument-hint", ""), field.get("model", ""),
                                        body, problem)
    return sorted([*found.values(), *extra], key=lambda c: c.name)


def find_command(line: str,
                 commands: Collection[PromptCommand]) -> tuple[PromptCommand, str] | None:
    """The command ``/name args`` calls and its argument string (None: not a prompt file's)."""
    if not line.startswith("/"):
        return None
    head, _, arguments = line[1:].partition(" ")
    for name in (head, head.removeprefix("user:")):
        for command in commands:
            if command.name == name and not command.problem.startswith("not used"):
                return command, arguments.strip()
    return None


def expand(command: PromptCommand, arguments: str) -> str:
    """The body with ``$ARGUMENTS`` and ``$1``..``$9`` filled (else the arguments appended)."""
    try:
        words = shlex.split(arguments)
    except ValueError:
        words = arguments.split()

    def fill(match: re.Match[str]) -> str:
        key = match.group(1)
        if key == "ARGUMENTS":
            return arguments
        return words[int(key) - 1] if int(key) <= len(words) else ""

    text = _ARG.sub(fill, command.body)
    if arguments and not _ARG.search(command.body):
        text = f"{text.rstrip()}\n\nARGUMENTS: {arguments}"
    return text


async def run_bangs(text: str, policy: Orchestrator, timeout: float = 60.0) -> str:
    """``text`` with each ``!`cmd``` line replaced by its result, run as ``run_command`` is."""
    from spark_cli.checks.command_run import format_run  # deferred: a prompt with ! lines
    from spark_cli.checks.runner import COMMAND_HEAD_BYTES, COMMAND_TAIL_BYTES
    from spark_cli.session.actions.orchestrator import Action

    lines = text.split("\n")
    for i, line in enumerate(lines):
        match = _BANG.fullmatch(line.strip())
        if match is None:
            continue
        command = match.group(1)
        need = await policy.clear(Action("command", command))
        if need is None or need.verdict != "run":
            lines[i] = f"[{command}: not run: {need.reason if need else 'stopped'}]"
            continue
        run = await policy.run_line(command, need.sandbox, timeout=timeout,
                                    head_bytes=COMMAND_HEAD_BYTES, tail_bytes=COMMAND_TAIL_BYTES)
        lines[i] = f"$ {command}\n{format_run(run, BANG_BUDGET).rstrip()}"
    return "\n".join(lines)


async def expand_line(line: str, root: Path, policy: Orchestrator,
                      reserved: Collection[str] = ()) -> tuple[str, str] | None:
    """The text a ``/name args`` line sends and its ``model`` (None: no such file)."""
    found = find_command(line.strip(), load_commands(root, reserved))
    if found is not None and found[0].problem:
        raise ValueError(f"/{found[0].name} ({found[0].path}) is broken: {found[0].problem}")
    return None if found is None else (await run_bangs(expand(*found), policy), found[0].model)


def init_ask(root: Path, test_command: str | None) -> str | None:
    """The message that asks for AGENTS.md; None when the repo has one already."""
    if (root / AGENTS_FILE).exists():
        return None
    entries = sorted((p for p in root.iterdir() if not p.name.startswith(".")),
                     key=lambda p: (not p.is_dir(), p.name))[:MOST_ENTRIES]
    layout = ", ".join(p.name + ("/" if p.is_dir() else "") for p in entries)
    found = detect_test_command(root, test_command)
    tests = "none found" if found is None else found.display if found.shell else \
        " ".join((Path(found.argv[0]).name, *found.argv[1:]))  # not this machine's path
    return (f"{INIT_HEAD}\n{LAYOUT_HEAD}{layout or '(empty)'}\n{TEST_HEAD}{tests}\n"
            f"Create {AGENTS_FILE} with one edit (an empty SEARCH creates a file): what the "
            "project is, its layout, how to run its tests, and the conventions the code "
            "follows, in under 60 lines, for a coding agent new to it.")

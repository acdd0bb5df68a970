"""A hostile command in the sandbox, for real: it cannot write ``.git`` or ``.spark`` (present
or missing), git's config and hooks behind a ``.git`` file (a worktree, a gitdir inside the
repo), nor unmount what protects them (root included); the rest of the repo stays writable."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from spark_cli.checks.command_run import CommandRun
from spark_cli.checks.runner import run_command
from tests.checks.processes import bubblewrap

ENV = {"PATH": os.environ["PATH"], "HOME": os.environ.get("HOME", "/root")}
HOSTILE = ("umount .git; umount .spark; mkdir .git/x && echo WROTE; "
           "echo evil > .git/hooks/pre-commit && echo WROTE; "
           "git config core.fsmonitor 'touch pwned' && echo WROTE; mkdir .spark/x && echo WROTE; "
           "echo 'commands = \"sandbox\"' > .spark/config.toml && echo WROTE; "
           "mv .git moved && echo WROTE; mv .spark moved2 && echo WROTE; echo made > made.txt")


def git(*args: str | Path) -> str:
    return subprocess.run(["git", *map(str, args)], check=True, capture_output=True,
                          text=True).stdout.strip()


def repo_with_commit(path: Path) -> Path:
    path.mkdir()
    git("init", "-q", path)
    (path / "a.txt").write_text("a\n")
    git("-C", path, "add", "a.txt")
    git("-C", path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    return path


async def sandboxed(command: str, root: Path) -> CommandRun:
    run = await run_command(command, root, timeout=60, env=ENV, sandbox=bubblewrap())
    assert run.sandboxed and "WROTE" not in run.output, run.output
    return run


def fsmonitor(root: Path) -> str:
    found = subprocess.run(["git", "-C", str(root), "config", "--get", "core.fsmonitor"],
                           capture_output=True, text=True)
    return found.stdout.strip()


async def test_present_git_and_spark_are_read_only(tmp_path: Path) -> None:
    root = repo_with_commit(tmp_path / "repo")
    (root / ".spark").mkdir()
    (root / ".spark" / "config.toml").write_text("commands = \"ask\"\n")
    before = sorted(p.relative_to(root) for p in (root / ".git").rglob("*"))
    run = await sandboxed(HOSTILE, root)
    assert (root / "made.txt").read_text() == "made\n"  # the repo itself is writable
    assert "Read-only file system" in run.output and "busy" in run.output
    assert sorted(p.relative_to(root) for p in (root / ".git").rglob("*")) == before
    assert fsmonitor(root) == "" and not (root / "moved").exists()
    assert (root / ".spark" / "config.toml").read_text() == "commands = \"ask\"\n"
    assert not (root / ".spark" / "x").exists() and not (root / "moved2").exists()


async def test_missing_git_and_spark_cannot_be_created(tmp_path: Path) -> None:
    root = tmp_path / "plain"
    root.mkdir()
    run = await sandboxed(f"git init -q . && echo WROTE; mkdir -p .git/hooks && echo WROTE; "
                          f"{HOSTILE}", root)
    assert (root / "made.txt").read_text() == "made\n"
    assert "Read-only file system" in run.output
    for name in (".git", ".spark"):  # at most the empty mount point is left on the host
        assert not (root / name).exists() or list((root / name).iterdir()) == []
    assert not (root / "moved").exists() and not (root / "moved2").exists()


async def test_a_worktree_git_file_and_its_gitdirs_are_read_only(tmp_path: Path) -> None:
    main = repo_with_commit(tmp_path / "main")
    tree = tmp_path / "tree"
    git("-C", main, "worktree", "add", "-q", tree)
    pointer = (tree / ".git").read_text()
    gitdir = Path(git("-C", tree, "rev-parse", "--absolute-git-dir"))
    command = (f"echo 'gitdir: {tree}/evil' > .git && echo WROTE; "
               "git config core.fsmonitor 'touch pwned' && echo WROTE; "
               f"echo evil > {gitdir}/config.worktree && echo WROTE; "
               f"echo evil > {main}/.git/hooks/post-checkout && echo WROTE; "
               "git rev-parse --abbrev-ref HEAD; echo made > made.txt")
    run = await sandboxed(command, tree)
    assert (tree / "made.txt").exists() and (tree / ".git").read_text() == pointer
    assert "tree" in run.output.splitlines()  # git reads the (read-only) gitdirs under /tmp
    assert fsmonitor(tree) == "" and fsmonitor(main) == ""
    assert not (gitdir / "config.worktree").exists()
    assert not (main / ".git" / "hooks" / "post-checkout").exists()


async def test_a_gitdir_inside_the_repo_is_read_only(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    git("init", "-q", f"--separate-git-dir={root / 'store'}", root)
    assert (root / ".git").is_file()
    command = ("git config core.fsmonitor 'touch pwned' && echo WROTE; "
               "echo evil > store/hooks/pre-commit && echo WROTE; echo made > made.txt")
    run = await sandboxed(command, root)
    assert (root / "made.txt").exists() and "Read-only file system" in run.output
    assert fsmonitor(root) == "" and not (root / "store" / "hooks" / "pre-commit").exists()


async def test_a_submodules_git_file_is_read_only(tmp_path: Path) -> None:
    library = repo_with_commit(tmp_path / "library")
    root = repo_with_commit(tmp_path / "repo")
    git("-C", root, "-c", "protocol.file.allow=always", "submodule", "add", "-q", library, "lib")
    pointer = (root / "lib" / ".git").read_text()
    command = ("mkdir -p evil && echo made > made.txt; "
               "echo 'gitdir: ../evil' > lib/.git && echo WROTE")
    await sandboxed(command, root)
    assert (root / "made.txt").exists() and (root / "lib" / ".git").read_text() == pointer

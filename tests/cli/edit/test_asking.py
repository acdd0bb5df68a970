"""`spark edit --commands ask` on a real terminal: a pty is the process's controlling terminal,
the scripted model (OpenAI's Chat Completions shapes) asks for a line holding escape
sequences and then a plain one; the question shows the first escaped, without "always",
though ``allowed_commands`` names its program; ``n`` declines it, ``y`` runs the second."""

from __future__ import annotations

import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

from tests.cli.edit.openai_script import Model, chat_model
from tests.cli.edit.test_edit_commands import KEY, repo  # noqa: F401 (the fixture)

HOSTILE = "touch pwned \x1b[2K\x1b[1Gpytest -q"
_CONTROLLING = ("import os, sys; os.close(os.open(sys.argv[1], os.O_RDWR)); "  # setsid'd: the
                "os.execv(sys.executable, [sys.executable, '-m', 'spark_cli', *sys.argv[2:]])")
# first terminal it opens becomes its controlling one, as in a terminal emulator


class Terminal:
    """The pty's far side: what spark wrote on its terminal, and the keys typed."""

    def __init__(self) -> None:
        self.master, self.slave = pty.openpty()
        self.name = os.ttyname(self.slave)
        self.seen = ""

    def until(self, text: str, timeout: float = 30) -> str:
        """Everything read up to ``text``'s first appearance after what was taken before."""
        deadline = time.monotonic() + timeout
        while text not in self.seen:
            ready, _, _ = select.select([self.master], [], [], max(deadline - time.monotonic(), 0))
            assert ready, f"not on the terminal within {timeout} s: {text!r}; got {self.seen!r}"
            self.seen += os.read(self.master, 4096).decode("utf-8", "replace")
        shown, _, self.seen = self.seen.partition(text)
        return shown + text

    def type(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def close(self) -> None:
        os.close(self.master)
        os.close(self.slave)


def test_the_terminal_question_shows_escapes_and_takes_n_and_y(repo: Path) -> None:  # noqa: F811
    (repo.parent / "user").mkdir()
    (repo.parent / "user" / "config.toml").write_text('allowed_commands = ["touch"]\n')
    model = Model({"command": HOSTILE}, {"command": "mkdir made"})
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPARK_")}
    env.update(SPARK_CONFIG_DIR=str(repo.parent / "user"), SPARK_API_KEY=KEY,
               SPARK_STATE_DIR=str(repo.parent / "state"),
               PYTHONPATH=str(Path(__file__).resolve().parents[3]))
    terminal = Terminal()
    try:
        with chat_model(model) as url:
            edit = subprocess.Popen(
                [sys.executable, "-c", _CONTROLLING, terminal.name, "edit", "app.py", "-m",
                 "run it", "--root", str(repo), "--provider", "openai-compatible",
                 "--base-url", url, "--model", "m", "--commands", "ask"],
                cwd=repo, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.PIPE, text=True, start_new_session=True)
            try:
                first = terminal.until("[N] no: ")
                terminal.type("n\n")
                second = terminal.until("[N] no: ")
                terminal.type("y\n")
                _out, err = edit.communicate(timeout=60)
            finally:
                edit.kill()
    finally:
        terminal.close()
    assert "$ touch pwned \\x1b[2K\\x1b[1Gpytest -q" in first and "\x1b[2K" not in first
    assert "[a] always" not in first
    assert "$ mkdir made" in second
    assert model.outputs[0] == "declined: the user did not allow this command", err
    assert model.outputs[1].startswith("exit 0"), err
    assert (repo / "made").is_dir() and not (repo / "pwned").exists()

"""Running commands, on request only: the model's `run_command` and the test command (`/test`).

One runner under both (``CI=1``, only `command_env`'s variables); ``on_output`` gets each
chunk on the event loop, and if it raises the run stops as if cancelled."""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shlex
import signal
import time
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from spark_cli.checks.command_env import command_environ
from spark_cli.checks.command_run import CommandRun, Ended, Kept
from spark_cli.checks.detect import TestCommand
from spark_cli.checks.sandbox import Sandbox, sandboxed_argv
from spark_cli.protocol.secrets import Masker
from spark_cli.record import record

DEFAULT_TIMEOUT = 600.0
DEFAULT_KEEP_BYTES = 256 * 1024
TAIL_LINES = 40
SUMMARY_LINES = 20
_READ_SIZE = 64 * 1024
_KILL_GRACE = 1.0
COMMAND_HEAD_BYTES = COMMAND_TAIL_BYTES = 64 * 1024
EXIT_TIMEOUT = 124  # what coreutils' timeout(1) reports
EXIT_NOT_FOUND = 127

_FAILURE_LINE = re.compile(
    r"^(FAILED |ERROR |E   |--- FAIL|FAIL\b|test .+ \.\.\. FAILED|thread '.+' panicked|"
    r"\s*●|panic:|.*\bError:|error(\[\w+\])?:)"
)
_PYTEST_COUNT = re.compile(
    r"^=*\s*(\d+ (failed|passed|errors?|skipped|deselected|xfailed|xpassed|warnings?)|"
    r"no tests ran)\b.*\bin [\d.]+s\b")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_ANSI_OPEN = re.compile(r"\x1b(\[[0-9;?]*)?$")  # an escape sequence cut off at the end


@record
class TestResult:
    """How one test run went."""

    __test__ = False  # not a pytest test class

    command: str
    exit_code: int
    duration_s: float
    output: str
    """The kept output (the last ``keep_bytes``), ANSI colours removed."""
    truncated: bool
    """Earlier output was dropped to stay within ``keep_bytes``."""
    timed_out: bool = False

    @property
    def passed(self) -> bool:
        return self.exit_code == 0 and not self.timed_out

    @property
    def tail(self) -> str:
        lines = self.output.splitlines()
        return "\n".join(lines[-TAIL_LINES:])

    @property
    def summary(self) -> str:
        """A few lines saying what failed ('' when the run passed)."""
        if self.passed:
            return ""
        if self.timed_out:
            head = f"`{self.command}` did not finish within the time limit and was stopped."
        elif self.exit_code == EXIT_NOT_FOUND and "not found" in self.output[-500:]:
            return f"`{self.command}` could not be started: {self.output.strip()[-300:]}"
        else:
            head = f"`{self.command}` failed (exit code {self.exit_code})."
        lines = self.output.splitlines()
        picked = [line for line in lines if _FAILURE_LINE.match(line)]
        counts = [line for line in lines if _PYTEST_COUNT.match(line)]
        body = picked[:SUMMARY_LINES] + counts[-1:]
        if not body:
            body = lines[-SUMMARY_LINES:]
        return "\n".join([head, *body])

    def fix_prompt(self) -> str:
        """What `/fix` sends: the failure summary and the output's tail."""
        return (f"The tests failed. Fix the code (not the tests, unless they are wrong).\n\n"
                f"{self.summary}\n\nLast lines of the output:\n{self.tail}\n")


class _Relay:
    """Bytes in; decoded, colourless, masked text out, never splitting a character or secret."""

    def __init__(self, kept: Kept, on_output: Callable[[str], None] | None,
                 masker: Masker | None) -> None:
        self.kept, self.on_output, self.masker = kept, on_output, masker
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.held = ""

    def feed(self, data: bytes, *, final: bool = False) -> None:
        text = self.held + self.decoder.decode(data, final)
        self.held = ""
        if not final and (cut := _ANSI_OPEN.search(text)) is not None:
            self.held, text = text[cut.start():], text[:cut.start()]
        text = _ANSI.sub("", text)
        if self.masker is not None:
            text = self.masker.feed(text) + (self.masker.flush() if final else "")
        if text:
            self.kept.add(text)
            if self.on_output is not None:
                self.on_output(text)


class _Protocol(asyncio.subprocess.SubprocessStreamProtocol):
    """asyncio's protocol plus ``exited``, set on exit even while an orphan holds the pipe."""

    def __init__(self, limit: int, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__(limit=limit, loop=loop)
        self.exited: asyncio.Future[None] = loop.create_future()

    def process_exited(self) -> None:
        super().process_exited()
        if not self.exited.done():
            self.exited.set_result(None)


def _signal_group(pid: int, sig: int) -> bool:
    """Send ``sig`` to the process group ``pid``; False when nobody is left in it."""
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


async def _end_group(pid: int, exited: asyncio.Future[None], pump: asyncio.Future[Any]) -> None:
    """SIGTERM to the group; SIGKILL once the pipe closed or ``_KILL_GRACE`` later."""
    if _signal_group(pid, signal.SIGTERM):
        await asyncio.wait({exited, pump}, timeout=_KILL_GRACE)
        _signal_group(pid, signal.SIGKILL)
    await exited


async def _pump(stream: asyncio.StreamReader, relay: _Relay) -> None:
    while chunk := await stream.read(_READ_SIZE):
        relay.feed(chunk)
    relay.feed(b"", final=True)


async def _watch(exited: asyncio.Future[None], pump: asyncio.Future[Any],
                 stopping: asyncio.Future[Any] | None, timeout: float) -> Ended:
    """How the run ends: the command exits, ``stop`` is set, or the time is up."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    waits: set[asyncio.Future[Any]] = {exited, pump, *([stopping] if stopping else [])}
    while True:
        done, _ = await asyncio.wait(waits, timeout=max(deadline - loop.time(), 0),
                                     return_when=asyncio.FIRST_COMPLETED)
        if pump in done:
            pump.result()  # on_output's error, if it raised
            waits.discard(pump)
        if exited in done:
            return "exit"
        if stopping is not None and stopping in done:
            return "stopped"
        if not done:
            return "timeout"


async def _run(argv: list[str], root: Path, env: Mapping[str, str], timeout: float,
               stop: asyncio.Event | None, relay: _Relay, stdin: bytes | None = None,
               errors: _Relay | None = None) -> tuple[Ended, int | None, float]:
    """Run ``argv`` in its own session and group, and end whatever is left of the group after.

    Returns how it ended, the status (None when killed) and the duration; stdout and stderr
    share one pipe. Nothing started in the group outlives the call (docs/tools.md, Running)."""
    started = time.perf_counter()
    loop = asyncio.get_running_loop()
    try:
        transport, protocol = await loop.subprocess_exec(
            lambda: _Protocol(limit=_READ_SIZE, loop=loop), *argv, cwd=root, env=dict(env),
            stdin=asyncio.subprocess.DEVNULL if stdin is None else asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, start_new_session=True,
            stderr=asyncio.subprocess.STDOUT if errors is None else asyncio.subprocess.PIPE)
    except OSError as exc:
        why = (f"{argv[0]}: not found" if isinstance(exc, FileNotFoundError)
               else f"{argv[0]}: cannot start ({exc.strerror or exc})")
        relay.feed((why if Path(root).is_dir() else f"{root}: no such folder").encode() + b"\n",
                   final=True)
        return "exit", EXIT_NOT_FOUND, time.perf_counter() - started
    assert protocol.stdout is not None
    pid, exited = transport.get_pid(), protocol.exited
    pumps = [_pump(protocol.stdout, relay)]
    if errors is not None and protocol.stderr is not None:
        pumps.append(_pump(protocol.stderr, errors))
    if stdin is not None and protocol.stdin is not None:
        with contextlib.suppress(OSError):  # a command that does not read its stdin
            protocol.stdin.write(stdin)
            protocol.stdin.close()
    pump = asyncio.ensure_future(asyncio.gather(*pumps))
    stopping = asyncio.ensure_future(stop.wait()) if stop is not None else None
    try:
        ended = await _watch(exited, pump, stopping, timeout)
        await _end_group(pid, exited, pump)
        await asyncio.wait({pump}, timeout=_KILL_GRACE)  # a process that left the group
        if pump.done():                                  # may hold the pipe open
            pump.result()
    except BaseException:  # cancelled (Esc, Ctrl-C) or on_output raised: take the group down
        await asyncio.shield(_end_group(pid, exited, pump))
        raise
    finally:
        pump.cancel()
        transport.close()
        if stopping is not None:
            stopping.cancel()
    code = transport.get_returncode() if ended == "exit" else None
    return ended, code, time.perf_counter() - started


async def run_command(command: str, root: Path, *, timeout: float, env: Mapping[str, str],
                      sandbox: Sandbox | None = None,
                      on_output: Callable[[str], None] | None = None,
                      stop: asyncio.Event | None = None, masker: Masker | None = None,
                      head_bytes: int = COMMAND_HEAD_BYTES,
                      tail_bytes: int = COMMAND_TAIL_BYTES, keep_env: Iterable[str] = (),
                      deny_read: Iterable[str] = ()) -> CommandRun:
    """Run the shell line ``command`` in ``root`` (sandboxed when given); never raises for it."""
    environ = command_environ(env, keep_env)
    environ.setdefault("CI", "1")
    argv = ["/bin/sh", "-c", command]
    if sandbox is not None:
        argv = sandboxed_argv(sandbox, root, argv, env=env, deny_read=deny_read)
        if sandbox.name == "bubblewrap":
            environ["TMPDIR"] = "/tmp"  # the sandbox's own /tmp; the host's is out of reach
    kept = Kept(head_bytes, tail_bytes)
    ended, code, duration = await _run(argv, root, environ, timeout, stop,
                                       _Relay(kept, on_output, masker))
    return CommandRun(command, ended, code, duration, "".join(kept.head), "".join(kept.tail),
                      kept.cut_bytes, kept.cut_lines, timeout, sandbox is not None)


async def run_hook(command: str, root: Path, stdin: bytes, *, timeout: float,
                   env: Mapping[str, str], cap_bytes: int) -> tuple[CommandRun, str]:
    """Run a hook (the user's shell line, unsandboxed) fed ``stdin``: its run and its stderr."""
    kept, err = Kept(cap_bytes // 2, cap_bytes // 2), Kept(cap_bytes // 2, cap_bytes // 2)
    ended, code, duration = await _run(["/bin/sh", "-c", command], root, env, timeout, None,
                                       _Relay(kept, None, None), stdin, _Relay(err, None, None))
    run = CommandRun(command, ended, code, duration, "".join(kept.head), "".join(kept.tail),
                     kept.cut_bytes, kept.cut_lines, timeout)
    return run, "".join(err.head) + ("\n[… cut …]\n" if err.cut_bytes else "") + "".join(err.tail)


async def run_tests(command: TestCommand, root: Path, *,
                    timeout: float = DEFAULT_TIMEOUT,
                    keep_bytes: int = DEFAULT_KEEP_BYTES,
                    on_output: Callable[[str], None] | None = None,
                    sandbox: Sandbox | None = None, env: Mapping[str, str] | None = None,
                    masker: Masker | None = None, keep_env: Iterable[str] = (),
                    deny_read: Iterable[str] = ()) -> TestResult:
    """Run the test ``command`` through `run_command`; never raises for a failing program."""
    line = command.argv[0] if command.shell else f"exec {shlex.join(command.argv)}"
    run = await run_command(line, root, timeout=timeout,
                            env=os.environ if env is None else env, sandbox=sandbox,
                            on_output=on_output, masker=masker, head_bytes=0,
                            tail_bytes=keep_bytes, keep_env=keep_env, deny_read=deny_read)
    output = run.tail
    if run.ended == "timeout":
        note = f"\n[spark: stopped after {timeout:g} s]\n"
        output += note
        if on_output is not None:
            on_output(note)
    return TestResult(command.display, EXIT_TIMEOUT if run.exit_code is None else run.exit_code,
                      run.duration_s, output, run.cut_bytes > 0, run.ended == "timeout")

"""Running the tests, on request only: a bounded, time-limited subprocess and its verdict.

``await run_tests(command, root)`` starts the command in ``root`` (its own
process group, stdin closed, ``CI=1`` so watchers such as jest run once),
keeps only the last ``keep_bytes`` of the combined stdout/stderr, and kills the
whole group when ``timeout`` passes or the caller is cancelled. The result
carries the exit code, the duration, the tail of the output and a short
failure summary (pytest's ``FAILED``/``ERROR`` lines and its final count line,
cargo/go/jest failure lines, else the last lines) that `/fix` can hand to the
model.

``on_output`` (optional) receives the output as it arrives, for a front end to
stream: decoded incrementally (UTF-8, ``errors="replace"``, a character split
across reads arrives whole), ANSI colour sequences removed (one split across
reads is held back until it completes), in chunks of at most ``_READ_SIZE``
bytes. The callback runs on the event loop between reads, so it must be quick;
if it raises, the run is stopped like a cancellation and the error propagates.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import signal
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

from spark_cli.checks.detect import TestCommand
from spark_cli.record import record

DEFAULT_TIMEOUT = 600.0
DEFAULT_KEEP_BYTES = 256 * 1024
TAIL_LINES = 40
SUMMARY_LINES = 20
_READ_SIZE = 64 * 1024
_KILL_GRACE = 2.0
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
            head = f"`{self.command}` could not be started: {self.output.strip()[-300:]}"
            return head
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


class _Tail:
    """The last ``limit`` bytes written, in chunks (never re-joined until the end)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.dropped = False

    def add(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        while self.size > self.limit and self.chunks:
            extra = self.size - self.limit
            first = self.chunks[0]
            self.dropped = True
            if len(first) <= extra:
                self.chunks.popleft()
                self.size -= len(first)
            else:
                self.chunks[0] = first[extra:]
                self.size -= extra

    def text(self) -> str:
        return _ANSI.sub("", b"".join(self.chunks).decode("utf-8", errors="replace"))


def _kill_group(process: asyncio.subprocess.Process, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


async def _stop(process: asyncio.subprocess.Process) -> None:
    _kill_group(process, signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), _KILL_GRACE)
    except TimeoutError:
        _kill_group(process, signal.SIGKILL)
        await process.wait()


class _Relay:
    """Bytes in, decoded colourless text out to ``on_output``, never splitting a character
    or a colour sequence."""

    def __init__(self, on_output: Callable[[str], None]) -> None:
        self.on_output = on_output
        self.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self.held = ""

    def feed(self, data: bytes, *, final: bool = False) -> None:
        text = self.held + self.decoder.decode(data, final)
        self.held = ""
        if not final and (cut := _ANSI_OPEN.search(text)) is not None:
            self.held, text = text[cut.start():], text[:cut.start()]
        text = _ANSI.sub("", text)
        if text:
            self.on_output(text)


async def _pump(stream: asyncio.StreamReader, tail: _Tail, relay: _Relay | None) -> None:
    while chunk := await stream.read(_READ_SIZE):
        tail.add(chunk)
        if relay is not None:
            relay.feed(chunk)
    if relay is not None:
        relay.feed(b"", final=True)


async def run_tests(command: TestCommand | str, root: Path, *,
                    timeout: float = DEFAULT_TIMEOUT,
                    keep_bytes: int = DEFAULT_KEEP_BYTES,
                    on_output: Callable[[str], None] | None = None) -> TestResult:
    """Run ``command`` in ``root``; never raises for a failing or missing program.

    ``on_output`` streams the output as it arrives (see the module doc); it also gets the
    line saying why a program could not start, and the note that the time limit stopped it.
    """
    if isinstance(command, str):
        command = TestCommand((command,), "configured", shell=True)
    env = dict(os.environ)
    env.setdefault("CI", "1")
    tail = _Tail(keep_bytes)
    started = time.perf_counter()
    try:
        if command.shell:
            process = await asyncio.create_subprocess_shell(
                command.argv[0], cwd=root, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True)
        else:
            process = await asyncio.create_subprocess_exec(
                *command.argv, cwd=root, env=env, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
                start_new_session=True)
    except OSError as exc:
        message = f"{command.argv[0]}: not found" if isinstance(exc, FileNotFoundError) \
            else f"{command.argv[0]}: cannot start ({exc.strerror or exc})"
        if on_output is not None:
            on_output(message + "\n")
        return TestResult(command.display, EXIT_NOT_FOUND, time.perf_counter() - started,
                          message, False)
    assert process.stdout is not None
    timed_out = False
    try:
        try:
            async with asyncio.timeout(timeout):
                await _pump(process.stdout, tail,
                            _Relay(on_output) if on_output is not None else None)
                await process.wait()
        except TimeoutError:
            timed_out = True
            await _stop(process)
    except BaseException:  # cancelled (Esc, Ctrl-C): take the whole group down with us
        await asyncio.shield(_stop(process))
        raise
    code = process.returncode if process.returncode is not None else -1
    output = tail.text()
    if timed_out:
        note = f"\n[spark: stopped after {timeout:g} s]\n"
        output += note
        code = EXIT_TIMEOUT
        if on_output is not None:
            on_output(note)
    return TestResult(command.display, code, time.perf_counter() - started, output,
                      tail.dropped, timed_out)

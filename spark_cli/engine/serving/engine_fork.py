"""The bundled engine in a forked child, so its start-up runs on another core (one-shots).

A one-shot ``spark edit`` on the bundled engine spends most of its time before
the request importing: the client (asyncio, websockets' client, the channel,
the session) and, on the engine's thread, the engine (websockets' server, the
engine, its brain), one after the other under one GIL. :func:`fork_engine`
binds the engine's socket and starts listening in the caller (so its URL is
known at once and a client that connects before the child serves waits in the
kernel's backlog), then forks: the child imports and serves while the parent
goes on with its own start-up on the other core.

The child serves the Responses WebSocket alone (``run_engine(http=False)``, as
the thread engine does) on the inherited socket. Its stdin, stdout and stderr
are ``/dev/null``, so a pipeline (``cat f | spark edit ... > g``, ``2> log``)
never waits on it and it never writes over the parent's output: a failure to
start goes to the parent over a report pipe (:meth:`ForkedEngine.failure`),
which says it in its own turn's error. It ignores SIGINT: Ctrl-C is the parent's, which
ends its turn and then closes the pipe. The child ends with ``os._exit`` (never the
parent's atexit handlers or buffers) as soon as its end of the pipe reads EOF: the
parent closed it (:meth:`ForkedEngine.close`) or exited, however it exited.

Forking without exec is only safe in a process with one thread, on POSIX, and
not on macOS (CPython's multiprocessing stopped forking there):
:func:`can_fork` says whether this process qualifies. Where it does not, the
caller runs the engine on a thread (:mod:`engine_thread`).
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from spark_cli.engine.serving.binding import bind_socket, url_host

if TYPE_CHECKING:
    import socket
    from collections.abc import Callable

    from spark_cli.engine.core.config import EngineConfig

BACKLOG = 16
"""Connections the kernel queues before the child serves (a one-shot opens one)."""
_REPORT_MAX = 4096
_unreaped: set[int] = set()
"""Children closed but not yet reaped (reaped without blocking by the next fork or close)."""


def can_fork() -> bool:
    """Whether this process may fork without exec: POSIX, not macOS, one thread."""
    if not hasattr(os, "fork") or sys.platform == "darwin":
        return False
    try:  # every thread, C ones included (Linux)
        return len(os.listdir("/proc/self/task")) == 1
    except OSError:
        pass
    threading = sys.modules.get("threading")  # not imported: no thread was started from Python
    return threading is None or threading.active_count() == 1


class ForkedEngine:
    """The parent's handle on the forked engine: its addresses and token, and :meth:`close`."""

    def __init__(self, pid: int, host: str, port: int, token: str | None,
                 stop_fd: int, report_fd: int) -> None:
        self.pid = pid
        self.port = port
        self.url = f"http://{host}:{port}"
        self.ws_url = f"ws://{host}:{port}/v1/responses"
        self.token = token
        self._stop_fd: int | None = stop_fd
        self._report_fd: int | None = report_fd
        self._failure: str | None = None
        self._status: int | None = None
        """The child's wait status once reaped."""

    def failure(self) -> str | None:
        """Why the child is not serving: what it reported if it could not start, or how it
        ended; None while it starts or serves.

        Never blocks. The child writes its report before it exits, and its exit is what
        closes the listening socket: a client that saw the socket close finds it here."""
        fd = self._report_fd
        if fd is not None:
            try:
                data = os.read(fd, _REPORT_MAX)
            except BlockingIOError:  # still starting
                return None
            except OSError:
                data = b""
            os.close(fd)  # a report, or EOF: the child serves (or ended without a word)
            self._report_fd = None
            if data:
                self._failure = data.decode(errors="replace")
        if self._failure is None and self._reaped():
            assert self._status is not None
            self._failure = f"the bundled engine ended ({_describe(self._status)})"
        return self._failure

    def close(self) -> None:
        """Let the child go (it exits when its pipe reads EOF). Never waits for it: it is
        reaped here if it is gone already, else by the next fork or close of this process,
        or by init once this process exits (until then it is a zombie)."""
        for name in ("_stop_fd", "_report_fd"):
            fd = getattr(self, name)
            if fd is not None:
                setattr(self, name, None)
                os.close(fd)
        _reap_closed()
        if not self._reaped():
            _unreaped.add(self.pid)

    def poll(self) -> int | None:
        """The child's exit code (negative: killed by that signal) once it ended, else None;
        never blocks (as ``Popen.poll``)."""
        return None if not self._reaped() else os.waitstatus_to_exitcode(self._status or 0)

    def _reaped(self) -> bool:
        if self._status is None:
            self._status = _reap(self.pid)
        return self._status is not None


def fork_engine(configure: Callable[[], EngineConfig], *, host: str,
                token: str | None) -> ForkedEngine:
    """Bind ``host`` on a free port (``OSError`` if it cannot be), fork, serve in the child
    until the parent closes the handle or exits; the parent gets the handle.

    ``configure`` makes the engine's configuration in the child (which imports it, not
    the parent); ``token`` is the one it holds (the parent's client needs it)."""
    _reap_closed()
    sock = bind_socket(host, 0)
    try:
        sock.listen(BACKLOG)
        host, port = sock.getsockname()[:2]
        stop_read, stop_write = os.pipe()  # both close on exec (PEP 446): tests spark
        report_read, report_write = os.pipe()  # runs never hold the child up
    except BaseException:
        sock.close()
        raise
    pid = os.fork()
    if pid == 0:  # the child: never returns
        os.close(stop_write)
        os.close(report_read)
        _child(configure, sock, stop_read, report_write)
    os.close(stop_read)
    os.close(report_write)
    os.set_blocking(report_read, False)
    sock.close()
    return ForkedEngine(pid, url_host(host), port, token, stop_write, report_read)


def _child(configure: Callable[[], EngineConfig], sock: socket.socket, stop_fd: int,
           report_fd: int) -> None:
    code = 1
    report = [report_fd]
    try:
        import signal

        signal.signal(signal.SIGINT, signal.SIG_IGN)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        import asyncio

        asyncio.run(_serve(configure(), sock, stop_fd, report))
        code = 0
    except BaseException as exc:  # the child reports, never returns into the parent's code
        if report:  # (not once serving: the fd is closed, its number maybe reused)
            _report(report_fd, exc)
    finally:
        os._exit(code)


async def _serve(config: EngineConfig, sock: socket.socket, stop_fd: int,
                 report: list[int]) -> None:
    """Serve on ``sock`` until ``stop_fd`` reads EOF; ``report`` holds the report pipe's fd
    until the engine serves (then it is closed and taken out)."""
    import asyncio
    import gc

    from spark_cli.engine.serving.server import run_engine

    loop = asyncio.get_running_loop()
    stopped = asyncio.Event()
    loop.add_reader(stop_fd, stopped.set)  # EOF (or anything): the parent let go
    async with run_engine(config, http=False, sock=sock):
        os.close(report.pop())  # serving: nothing to report
        if not gc.isenabled():  # the console script's start-up turned it off
            gc.freeze()
            gc.enable()
        await stopped.wait()
        os._exit(0)  # nobody to close the connections for: the parent is done with them


def _report(fd: int, exc: BaseException) -> None:
    text = f"the bundled engine could not start: {type(exc).__name__}: {exc}"
    try:
        os.write(fd, text.encode()[:_REPORT_MAX])
    except OSError:
        pass


def _reap(pid: int) -> int | None:
    """The child's wait status if it ended (reaped now), else None; never blocks."""
    try:
        done, status = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:  # reaped already (by a SIGCHLD handler, …)
        return 0
    return status if done else None


def _reap_closed() -> None:
    """Reap the children let go earlier that have ended since."""
    for pid in list(_unreaped):
        if _reap(pid) is not None:
            _unreaped.discard(pid)


def _describe(status: int) -> str:
    if os.WIFSIGNALED(status):
        return f"killed by signal {os.WTERMSIG(status)}"
    return f"exit status {os.waitstatus_to_exitcode(status)}"

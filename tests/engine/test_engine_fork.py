"""The engine in a forked child: it serves on the socket bound before the fork, goes when let
go, reports why it could not start, and is only forked from a process with one thread."""

from __future__ import annotations

import functools
import os
import socket
import threading
import time

import pytest

from spark_cli.engine.core.config import EngineConfig
from spark_cli.engine.serving.engine_fork import ForkedEngine, can_fork, fork_engine

pytestmark = pytest.mark.skipif(not can_fork(), reason="forks only where it is safe")


def _get(engine: ForkedEngine, path: str) -> bytes:
    """A plain HTTP GET (the child serves /healthz); b"" if the connection just closes."""
    with socket.create_connection(("127.0.0.1", engine.port), timeout=20) as conn:
        conn.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
        data = b""
        try:
            while chunk := conn.recv(65536):
                data += chunk
                if b"\r\n\r\n" in data and data.endswith(b"}"):
                    break
        except ConnectionResetError:
            pass
        return data


def _ended(engine: ForkedEngine, timeout: float = 20.0) -> int:
    """The child's exit code, once it ended."""
    deadline = time.monotonic() + timeout
    while (code := engine.poll()) is None:
        assert time.monotonic() < deadline, f"the engine child {engine.pid} is still running"
        time.sleep(0.01)
    return code


def test_the_child_serves_on_the_port_bound_before_the_fork_and_ends_when_let_go() -> None:
    configure = functools.partial(EngineConfig, host="127.0.0.1", port=0, token="t0ken")
    engine = fork_engine(configure, host="127.0.0.1", token="t0ken")
    try:
        assert engine.url.startswith("http://127.0.0.1:") and engine.token == "t0ken"
        assert engine.ws_url == engine.url.replace("http", "ws", 1) + "/v1/responses"
        answer = _get(engine, "/healthz")  # may connect before the child serves: queued
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"status": "ok"}')
        assert engine.failure() is None
    finally:
        engine.close()
    assert _ended(engine) == 0
    with pytest.raises(ConnectionRefusedError):  # the socket went with the child
        socket.create_connection(("127.0.0.1", engine.port), timeout=5).close()


def test_a_child_that_cannot_start_says_why_and_exits_1() -> None:
    configure = functools.partial(EngineConfig, host="127.0.0.1", port=0, brain="no-such-brain")
    engine = fork_engine(configure, host="127.0.0.1", token=None)
    try:
        assert _get(engine, "/healthz") == b""  # closed without an answer
        why = engine.failure()
        assert why is not None and why.startswith("the bundled engine could not start: ")
        assert "no-such-brain" in why
    finally:
        engine.close()
    assert _ended(engine) == 1


def test_a_child_that_dies_is_reported_with_its_signal() -> None:
    engine = fork_engine(functools.partial(EngineConfig, port=0), host="127.0.0.1", token=None)
    try:
        assert _get(engine, "/healthz").startswith(b"HTTP/1.1 200")
        os.kill(engine.pid, 9)
        deadline = time.monotonic() + 20
        while (why := engine.failure()) is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert why == "the bundled engine ended (killed by signal 9)"
        assert engine.poll() == -9
    finally:
        engine.close()


def test_no_fork_while_another_thread_runs() -> None:
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not can_fork()
    finally:
        stop.set()
        thread.join()

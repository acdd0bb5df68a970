"""The tests' shape: they wait for events, not time, and every test checks something.

A ``sleep`` call in tests/ is either tests/waiting.py polling a condition or one of the
pacing sleeps listed in ``PACING`` (the sleep is the behaviour under test: a stub server pacing
frames, a slow peer, a deliberately busy consumer). A test function must assert, expect an
exception (``pytest.raises``/``pytest.fail``/``raise``) or call a helper in tests/ that does.
Both are read from the source with ``ast``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).parent
POLLING = "waiting.py"
DATA = ("edits/scenarios/",)  # repositories the edit scenarios run on, not tests
# (path under tests/, enclosing function) -> why that sleep is the behaviour under test
PACING: dict[tuple[str, str], str] = {
    ("engine/test_brain_loading.py", "SlowToLoad.__call__"): "a brain that is slow to load",
    ("engine/test_pace_from_first_delta.py", "SlowStartBrain.answer"):
        "a brain slow to its first pieces",
    ("edits/disk/test_kill_mid_write.py", "test_sigkill_never_leaves_a_half_written_file"):
        "a kill at a random moment of the write",
    ("session/test_session_turns.py", "test_ttft_and_tokens_per_second_from_usage.slow"):
        "chunks that take time, so the rate is finite",
    ("session/session_fakes.py", "ScriptedChannel.stream"):
        "a fake stream yields to the loop between chunks, as a socket read does",
    ("session/session_fakes.py", "ResponsesChannel.stream"):
        "a fake stream yields to the loop between events, as a socket read does",
    ("session/test_turn_s1.py", "Script.stream"):
        "a fake stream yields to the loop between events, as a socket read does",
    ("tui/commands/test_tool_calls.py", "Channel.stream"): "a fake stream paced like a model",
    ("mcp/script_server.py", "<module>"): "an MCP server slow to start (--slow)",
    ("mcp/script_server.py", "hang"): "an MCP tool that never answers",
    ("transport/sse/test_http_chat_channel.py", "chat_app.app"): "a server that stalls mid-stream",
    ("transport/sse/test_http_chat_channel.py",
     "test_stop_before_the_response_headers_ends_at_once.slow_headers"):
        "a server slow to send its headers",
    ("transport/fast/test_h11_client.py", "test_a_reset_connection_is_a_read_error.handler"):
        "a peer that resets mid-body, after the client read the first bytes",
    ("transport/fast/test_h11_client.py",
     "test_a_server_that_never_answers_hits_the_first_token_timeout.handler"):
        "a server that never answers",
    ("transport/fast/test_h11_client.py",
     "test_an_idle_connection_past_its_keep_alive_is_not_reused"):
        "idling past the keep-alive expiry",
    ("transport/sse/test_http_prefill.py", "slow_prefill_app.app"):
        "a server pinging through a prefill",
    ("transport/ws/test_websocket_channel.py",
     "test_a_slow_consumer_is_not_mistaken_for_a_silent_server"):
        "a consumer slower than the idle timeout",
    ("transport/ws/test_websocket_channel.py",
     "test_an_abandoned_turn_does_not_leak_frames_into_the_next.slow"):
        "a server pacing its frames",
    ("transport/ws/test_ws_queued.py",
     "test_tokens_that_come_while_the_reader_gathers_go_up_as_one.paced"):
        "a server sending one token a message, apart",
    ("transport/ws/test_ws_queued.py",
     "test_a_message_whose_end_has_not_come_is_still_timed.stall.pieces"):
        "a message whose last frame never comes in time",
    ("transport/sse/test_http_stream_merge.py", "_paced_app.app"):
        "a server sending one chunk a token, apart",
}
SLEEPS = {"sleep"}
RAISES = {"raises", "fail", "warns", "deprecated_call"}


Sources = list[tuple[str, ast.Module]]


def _sources() -> Sources:
    paths = [path.relative_to(TESTS).as_posix() for path in sorted(TESTS.rglob("*.py"))]
    return [(path, ast.parse((TESTS / path).read_text(), path)) for path in paths
            if not path.startswith(DATA)]


def _functions(tree: ast.AST, prefix: str = "") -> Iterator[tuple[str, ast.AST]]:
    """``(qualified name, node)`` for every function, nested ones included."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            name = f"{prefix}{node.name}"
            if not isinstance(node, ast.ClassDef):
                yield name, node
            yield from _functions(node, f"{name}.")
        else:
            yield from _functions(node, prefix)


def _own_nodes(scope: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``scope``'s body, not those of functions or classes nested in it."""
    for node in ast.iter_child_nodes(scope):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        yield node
        yield from _own_nodes(node)


def _called(node: ast.AST) -> str:
    if not isinstance(node, ast.Call):
        return ""
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _sleeps(sources: Sources) -> set[tuple[str, str]]:
    """``(path, function)`` for every scope that calls ``sleep`` (``<module>`` at top level)."""
    found: set[tuple[str, str]] = set()
    for path, tree in sources:
        if path == POLLING:
            continue
        scopes = [("<module>", tree), *_functions(tree)]
        found |= {(path, name) for name, scope in scopes
                  if any(_called(node) in SLEEPS for node in _own_nodes(scope))}
    return found


def _checks_itself(function: ast.AST) -> bool:
    return any(isinstance(node, ast.Assert | ast.Raise) or _called(node) in RAISES
               for node in _own_nodes(function))


def _unchecked(sources: Sources) -> list[str]:
    """Test functions that neither check something nor call a helper (anywhere in
    ``sources``, matched by name) that does, directly or through other helpers."""
    functions = [(path, name, name.rsplit(".", 1)[-1], node) for path, tree in sources
                 for name, node in _functions(tree)]
    checking = {short for _, _, short, node in functions if _checks_itself(node)}
    while True:
        more = {short for _, _, short, node in functions
                if any(_called(n) in checking for n in _own_nodes(node))}
        if more <= checking:
            break
        checking |= more
    return [f"{path}:{name}" for path, name, short, _ in functions
            if short.startswith("test_") and short not in checking]


def test_no_fixed_sleep_outside_the_pacing_list() -> None:
    found = _sleeps(_sources())
    assert sorted(found - set(PACING)) == [], ("wait for the event (tests/waiting.py), or "
                                               "add the pacing sleep to PACING with why")
    assert sorted(set(PACING) - found) == [], "PACING lists a sleep that is gone"


def test_every_test_checks_something() -> None:
    assert _unchecked(_sources()) == []


def test_the_guards_catch_a_sleep_and_a_test_without_a_check() -> None:
    code = ("import asyncio, time\n"
            "def helper(x):\n    assert x\n"
            "def outer(x):\n    helper(x)\n"
            "def test_through_helpers():\n    outer(1)\n"
            "def test_raises():\n    with pytest.raises(ValueError):\n        int('x')\n"
            "def test_nothing():\n    print(1)\n"
            "async def test_waits():\n    await asyncio.sleep(0.1)\n    assert True\n"
            "class TestA:\n    def test_sleeps(self):\n        time.sleep(1)\n")
    sources = [("test_x.py", ast.parse(code))]
    assert _sleeps(sources) == {("test_x.py", "test_waits"), ("test_x.py", "TestA.test_sleeps")}
    assert _unchecked(sources) == ["test_x.py:test_nothing", "test_x.py:TestA.test_sleeps"]

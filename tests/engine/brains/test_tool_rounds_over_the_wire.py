"""The rules and deep brains' tool rounds through the engine: WebSocket chained with
outputs only, and Chat Completions with the whole conversation each time."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from brain_harness import edits_of
from engine_client import send, until, ws_connect
from tool_harness import RepoTools

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.outcome import EditApplied

EXAMPLE = Path(__file__).parents[3] / "examples" / "repo"
TOOLS = [{"type": "function", "name": n, "description": n,
          "parameters": {"type": "object", "properties": {}}}
         for n in ("read_file", "search", "list_files")]
FAST = {"tps": 50000, "ttft_ms": 0, "deep_tps": 50000, "deep_ttft_ms": 0}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "repo")
    return tmp_path / "repo"


def _apply(text: str, root: Path) -> set[str]:
    applier = Applier(root)
    for edit in edits_of(text):
        outcome = applier.apply(edit)
        assert isinstance(outcome, EditApplied) and not outcome.refused
    return {edit.path for edit in edits_of(text)}


async def test_rules_rename_over_the_websocket(engine_factory: Any, repo: Path) -> None:
    engine = await engine_factory(**FAST)
    tools = RepoTools(repo)
    sent_inputs: list[list[dict[str, Any]]] = []
    async with ws_connect(engine) as ws:
        request: dict[str, Any] = {"input": "rename total_price to cart_total"}
        for _ in range(6):
            await send(ws, type="response.create", model="spark-rules", tools=TOOLS, **request)
            final = (await until(ws))[-1]
            assert final["type"] == "response.completed", final
            calls = [i for i in final["response"]["output"] if i["type"] == "function_call"]
            if not calls:
                break
            outputs = [{"type": "function_call_output", "call_id": c["call_id"],
                        "output": tools.run(c["name"], c["arguments"])} for c in calls]
            sent_inputs.append(outputs)
            request = {"previous_response_id": final["response"]["id"], "input": outputs}
    assert [len(i) for i in sent_inputs] == [1, 3]
    text = final["response"]["output"][0]["content"][0]["text"]
    assert _apply(text, repo) == {"src/shop/cart.py", "tests/test_cart.py"}
    assert "total_price" not in (repo / "tests/test_cart.py").read_text()


async def test_deep_docstrings_over_chat(engine_factory: Any, repo: Path) -> None:
    engine = await engine_factory(**FAST)
    tools = RepoTools(repo)
    chat_tools = [{"type": "function", "function": {k: v for k, v in t.items() if k != "type"}}
                  for t in TOOLS]
    messages: list[dict[str, Any]] = [
        {"role": "user", "content": "add a docstring to every function in src/shop"}]
    async with httpx.AsyncClient(trust_env=False, timeout=30) as client:
        for _ in range(6):
            reply = await client.post(
                engine.url + "/v1/chat/completions",
                headers={"Authorization": "Bearer test-token"},
                json={"model": "spark-deep", "messages": messages, "tools": chat_tools})
            assert reply.status_code == 200, reply.text
            message = reply.json()["choices"][0]["message"]
            messages.append(message)
            if not message.get("tool_calls"):
                break
            assert reply.json()["choices"][0]["finish_reason"] == "tool_calls"
            messages += [{"role": "tool", "tool_call_id": c["id"],
                          "content": tools.run(c["function"]["name"],
                                               c["function"]["arguments"])}
                         for c in message["tool_calls"]]
    assert [name for name, _ in tools.log] == ["list_files"] + ["read_file"] * 3
    assert json.dumps(tools.log[0][1]) == '{"path": "src/shop"}'
    assert _apply(messages[-1]["content"], repo) == {"src/shop/cart.py", "src/shop/pricing.py"}


async def test_rules_runs_the_tests_over_the_websocket(engine_factory: Any, repo: Path) -> None:
    engine = await engine_factory(**FAST)
    tools = RepoTools(repo)
    run_command = {"type": "function", "name": "run_command", "description": "run",
                   "parameters": {"type": "object", "properties": {}}}
    command = f"{sys.executable} -m pytest -q -p no:cacheprovider"
    request: dict[str, Any] = {"input": "run the tests", "instructions":
                               f"The project's test command: `{command}`"}
    async with ws_connect(engine) as ws:
        for _ in range(3):
            await send(ws, type="response.create", model="spark-rules",
                       tools=[*TOOLS, run_command], **request)
            final = (await until(ws))[-1]
            calls = [i for i in final["response"]["output"] if i["type"] == "function_call"]
            if not calls:
                break
            outputs = [{"type": "function_call_output", "call_id": c["call_id"],
                        "output": tools.run(c["name"], c["arguments"])} for c in calls]
            request = {"previous_response_id": final["response"]["id"], "input": outputs}
    assert tools.log == [("run_command", {"command": command})]
    assert final["response"]["output"][0]["content"][0]["text"].startswith(
        "The tests pass: 2 passed in ")

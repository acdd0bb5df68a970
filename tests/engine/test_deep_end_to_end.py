"""A spark-deep answer streamed by the engine applies with spark's own edit engine to a
small repo on disk: every file the task reaches changes, the others stay."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from engine_client import send, text_of, until, ws_connect

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.protocol.files import FileBlock, render_file_blocks

REPO = {
    "shop/prices.py": "def total(items, tax):\n    return sum(items) * (1 + tax)\n",
    "shop/cart.py": "from shop.prices import total\n\n\ndef checkout(cart):\n"
                    "    return total(cart.items, 0.2)\n",
    "shop/report.py": "from shop import prices\n\n\ndef line(items):\n"
                      "    return f'{prices.total(items, 0):.2f}'\n",
    "shop/untouched.py": "def other():\n    return 1\n",
}


def _apply(answer: str, root: Path) -> dict[str, str]:
    for path, content in REPO.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(content)
    parser = EditStreamParser()
    items = []
    for i in range(0, len(answer), 11):  # fed as a stream
        items += parser.feed(answer[i:i + 11])
    items += parser.close()
    assert not [i for i in items if isinstance(i, BlockRejected)]
    applier = Applier(root)
    for edit in [i for i in items if isinstance(i, FileEdit)]:
        outcome = applier.apply(edit)
        assert isinstance(outcome, EditApplied) and not outcome.refused, outcome
    return {path: (root / path).read_text() for path in REPO}


async def test_a_deep_multi_step_task_applies_to_a_repo(engine_factory: Any,
                                                        tmp_path: Path) -> None:
    engine = await engine_factory(deep_tps=50000, deep_ttft_ms=0)
    task = ("1. rename total to grand_total in shop/prices.py\n"
            "2. add a parameter discount=0 to grand_total and update its callers\n"
            "3. add docstrings to every function in prices.py")
    prompt = task + "\n\n" + render_file_blocks([FileBlock(p, c) for p, c in REPO.items()])
    async with ws_connect(engine) as ws:
        await send(ws, type="response.create", model="spark-deep", input=prompt,
                   instructions="Edit with the apply_patch tool: *** Begin Patch ...")
        events = await until(ws)
    assert events[-1]["type"] == "response.completed"
    answer = text_of(events)
    assert answer.count("*** Begin Patch") == 3
    files = _apply(answer, tmp_path)
    assert files["shop/prices.py"].startswith("def grand_total(items, tax, discount=0):\n"
                                              '    """Grand total.\n')
    assert "return grand_total(cart.items, 0.2, discount=0)" in files["shop/cart.py"]
    assert "prices.grand_total(items, 0, discount=0)" in files["shop/report.py"]
    assert files["shop/untouched.py"] == REPO["shop/untouched.py"]
    for text in files.values():
        ast.parse(text)

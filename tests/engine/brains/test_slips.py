"""The rules brain's mistakes on purpose (``--slips``): each kind does what a real model's
mistake does to the tree, a kind that cannot apply is replaced, the seed decides, P = 0
changes nothing, and the engine takes ``seed`` and ``--slips`` over the wire."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from brain_harness import ask, edits_of, request

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.model.outcome import EditApplied
from spark_cli.engine.brains.base import BrainRequest, EditFormat
from spark_cli.engine.brains.rules.instruction_parser import parse_instruction
from spark_cli.engine.brains.rules.ops.op_docstring import add_docstring
from spark_cli.engine.brains.rules.ops.op_rename import rename
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.engine.brains.rules.slips import _SLIPS, KINDS, slipped
from spark_cli.engine.core.config import EngineConfig

CART = ("def total_price(items):\n    return sum(i.price for i in items)\n\n\n"
        "def count(items):\n    return len(items)\n\n\n"
        "def summary(items):\n    return f'{count(items)}: {total_price(items)}'\n")
PRICING = ("from cart import total_price\n\n\n"
           "def with_tax(items):\n    return total_price(items) * 1.2\n")
FILES = {"cart.py": CART, "pricing.py": PRICING}
RENAME = "rename total_price to cart_total"


def _asked(prompt: str, files: dict[str, str], seed: int | None, slips: float,
           fmt: EditFormat = "search_replace") -> BrainRequest:
    base = request(prompt, files, fmt)
    return BrainRequest(base.model, base.instructions, base.conversation, fmt, seed=seed,
                        slips=slips)


def _answer(prompt: str, files: dict[str, str], seed: int | None, slips: float,
            fmt: EditFormat = "search_replace") -> str:
    return "".join(str(piece) for piece in RulesBrain().answer(_asked(prompt, files, seed,
                                                                      slips, fmt)))


def _apply(answer: str, files: dict[str, str], root: Path) -> tuple[dict[str, str], list[str]]:
    """The files after every edit of ``answer`` that applies, and the refusals' reasons."""
    for path, content in files.items():
        (root / path).write_text(content, encoding="utf-8")
    applier = Applier(root)
    refused: list[str] = []
    for edit in edits_of(answer):
        outcome = applier.apply(edit)
        if not isinstance(outcome, EditApplied) or outcome.refused:
            refused.append(str(outcome))
    return {p: (root / p).read_text(encoding="utf-8") for p in files}, refused


def _kind(kind: str, prompt: str, files: dict[str, str], operation: Any,
          fmt: EditFormat = "search_replace", seed: int = 1) -> str | None:
    instruction = parse_instruction(prompt)
    assert instruction is not None
    result = operation(instruction, files, [])
    answer = _SLIPS[kind](result, instruction, random.Random(seed),
                          lambda other: operation(other, files, []), fmt)
    return None if answer is None else "".join(answer)


def test_no_slips_means_the_plain_answer() -> None:
    plain = ask(RENAME, FILES)
    assert all(_answer(RENAME, FILES, seed, 0.0) == plain for seed in range(40))


def test_the_seed_decides_and_the_share_follows_p() -> None:
    plain = ask(RENAME, FILES)
    answers = [_answer(RENAME, FILES, seed, 0.4) for seed in range(200)]
    assert answers == [_answer(RENAME, FILES, seed, 0.4) for seed in range(200)]
    slipped_share = sum(a != plain for a in answers) / len(answers)
    assert 0.25 < slipped_share < 0.55, slipped_share


@pytest.mark.parametrize("fmt", ["search_replace", "apply_patch"])
def test_a_stale_name_is_left_in_one_file(tmp_path: Path, fmt: EditFormat) -> None:
    answer = _kind("stale_name", RENAME, FILES, rename, fmt)
    assert answer is not None
    after, refused = _apply(answer, FILES, tmp_path)
    assert refused == []
    stale = [p for p, text in after.items() if "total_price" in text]
    assert len(stale) == 1 and any("cart_total" in text for text in after.values())


@pytest.mark.parametrize("fmt", ["search_replace", "apply_patch"])
def test_an_anchor_that_does_not_match_is_refused(tmp_path: Path, fmt: EditFormat) -> None:
    answer = _kind("anchor", RENAME, FILES, rename, fmt)
    assert answer is not None
    after, refused = _apply(answer, FILES, tmp_path)
    assert refused, answer
    assert after != {p: t.replace("total_price", "cart_total") for p, t in FILES.items()}


def test_an_indentation_python_cannot_parse(tmp_path: Path) -> None:
    answer = _kind("indent", RENAME, FILES, rename)
    assert answer is not None
    after, refused = _apply(answer, FILES, tmp_path)
    assert refused == []  # tree-sitter's grammar takes it: the check has to catch it
    broken = []
    for path, text in after.items():
        try:
            compile(text, path, "exec")
        except SyntaxError:
            broken.append(path)
    assert len(broken) == 1


def test_the_wrong_function_gets_the_edit(tmp_path: Path) -> None:
    prompt = "add a docstring to count"
    answer = _kind("wrong_function", prompt, {"cart.py": CART}, add_docstring)
    assert answer is not None and "count" in answer.splitlines()[0]  # said as asked
    after, refused = _apply(answer, {"cart.py": CART}, tmp_path)
    assert refused == []
    body = after["cart.py"].split("def count(items):\n")[1].split("\n")[0]
    assert '"""' not in body and after["cart.py"].count('"""') >= 1


def test_kinds_that_cannot_apply_are_replaced_by_one_that_can() -> None:
    js = {"app.js": "function f() {\n  console.log('x');\n  return 1;\n}\n"}
    prompt = "remove console.log calls"
    plain = ask(prompt, js)
    instruction = parse_instruction(prompt)
    assert instruction is not None
    assert _kind("indent", prompt, js, _op("remove_prints")) is None  # not Python
    assert _kind("stale_name", prompt, js, _op("remove_prints")) is None  # not a rename
    for seed in range(20):  # every draw slips: only the anchor applies
        answer = _answer(prompt, js, seed, 1.0)
        assert answer != plain and "# as before" in answer


def test_nothing_to_slip_leaves_an_explanation_alone() -> None:
    prompt = "explain cart.py"
    assert _answer(prompt, FILES, 3, 1.0) == ask(prompt, FILES)
    assert set(KINDS) == set(_SLIPS)
    assert slipped  # the brain's one entry point


def _op(kind: str) -> Any:
    from spark_cli.engine.brains.rules.rules_brain import OPERATIONS
    return OPERATIONS[kind]


def test_a_share_out_of_range_is_refused() -> None:
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match=r"slips must be a share 0\.\.1"):
            EngineConfig(slips=bad)
    done = subprocess.run([sys.executable, "-m", "spark_cli", "engine", "serve", "--slips",
                           "2", "--port", "0"], capture_output=True, text=True, timeout=60,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 2 and "slips must be a share 0..1" in done.stderr


async def test_the_engine_takes_seed_and_slips_over_chat(engine_factory: Any) -> None:
    engine = await engine_factory(tps=50000, ttft_ms=0, slips=1.0)
    prompt = request(RENAME, FILES).conversation[-1].text

    async def chat(seed: int | None) -> str:
        body: dict[str, Any] = {"model": "spark-rules", "messages": [
            {"role": "user", "content": prompt}]}
        if seed is not None:
            body["seed"] = seed
        async with httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10,
                                     headers={"Authorization": "Bearer test-token"}) as http:
            answer = (await http.post("/v1/chat/completions", json=body)).json()
        return str(answer["choices"][0]["message"]["content"])

    plain = ask(RENAME, FILES)
    first = await chat(7)
    assert first == await chat(7) != plain
    assert await chat(None) != plain  # no seed: the engine's own draw, still slipped
    async with httpx.AsyncClient(base_url=engine.url, trust_env=False, timeout=10,
                                 headers={"Authorization": "Bearer test-token"}) as http:
        bad = await http.post("/v1/chat/completions", content=json.dumps(
            {"model": "spark-rules", "seed": "x", "messages": [{"role": "user",
                                                               "content": "hi"}]}))
    assert bad.status_code == 400 and "seed" in bad.text

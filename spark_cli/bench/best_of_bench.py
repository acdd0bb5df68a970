"""`spark bench best-of`: one answer against best of N on a seeded task set with tests, at
``--slips`` and ``--tps``, judged by the same check: pass shares, the wall ratio, the
client's CPU per candidate (the engine and the checks are other processes).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import typer

from spark_cli.bench.figures import DOCS_OPTION, NO_DOCS_OPTION, report
from spark_cli.bench.processes import start_engine
from spark_cli.cli.edit.best_of import race
from spark_cli.session.config.settings import load_settings

SECTION = "## Best of N"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "repo"
CART, PRICING = "src/shop/cart.py", "src/shop/pricing.py"
Task = tuple[str, str, tuple[str, ...], str]
"""(repo: "examples" | "generated", instruction, files, the test file's body)."""


def _generated(k: int) -> str:
    return "".join(f"def area_{i}(x):\n    return x * {i}\n\n\n"
                   f"def use_area_{i}(x):\n    return area_{i}(x) + 1\n\n\n"
                   f"def unused_{i}():\n    return {i}\n\n\n" for i in range(1, k + 1))


def tasks(k: int = 4) -> list[Task]:
    """At least 20 tasks: renames, docstrings, new parameters, deletions, with tests that
    catch the engine's slips (a stale name, a wrong function, a broken indent)."""
    others = "[f for n, f in vars(m).items() if callable(f) and n != {name!r}]"
    out: list[Task] = []
    for i in range(1, k + 1):
        gen = ("gen.py",)
        head = "import inspect\nimport gen as m\n\n\ndef test_it():\n"
        out += [
            ("generated", f"rename area_{i} to surface_{i}", gen,
             head + f"    assert m.surface_{i}(2) == {2 * i} and m.use_area_{i}(2) == {2 * i + 1}"
                    f"\n    assert not hasattr(m, 'area_{i}')\n"),
            ("generated", f"add a docstring to area_{i}", gen,
             head + f"    assert m.area_{i}.__doc__\n    assert not any(f.__doc__ for f in "
                    f"{others.format(name=f'area_{i}')})\n"),
            ("generated", f"add parameter scale=1 to area_{i}", gen,
             head + f"    assert 'scale' in inspect.signature(m.area_{i}).parameters\n"
                    f"    assert m.use_area_{i}(2) == {2 * i + 1}\n"
                    f"    assert not any('scale' in inspect.signature(f).parameters for f in "
                    f"{others.format(name=f'area_{i}')} if inspect.isfunction(f))\n"),
            ("generated", f"delete unused_{i}", gen,
             head + f"    assert not hasattr(m, 'unused_{i}')\n    assert len([f for f in "
                    f"vars(m).values() if inspect.isfunction(f)]) == {3 * k - 1}\n"),
        ]
    shop = "import inspect\nfrom shop import cart, pricing\n\n\ndef test_it():\n" \
           "    c = cart.Cart(discount=10)\n    c.add('tea', 500, 2)\n"
    out += [
        ("examples", "rename total_price to cart_total", (CART,),
         shop + "    assert cart.cart_total(c) == 1080 and cart.format_total(c) == '10.80'\n"),
        ("examples", "rename apply_discount to discounted", (PRICING, CART),
         shop + "    assert pricing.discounted(100, 10) == 90 and cart.total_price(c) == 1080\n"),
        ("examples", "rename with_tax to add_tax", (PRICING, CART),
         shop + "    assert pricing.add_tax(100) == 120 and cart.total_price(c) == 1080\n"),
        ("examples", "add a docstring to with_tax", (PRICING,),
         shop + "    assert pricing.with_tax.__doc__ and not pricing.apply_discount.__doc__\n"),
        ("examples", "add a docstring to format_total", (CART,),
         shop + "    assert cart.format_total.__doc__ and not cart.total_price.__doc__\n"),
        ("examples", "add parameter rounding=True to with_tax", (PRICING,),
         shop + "    assert 'rounding' in inspect.signature(pricing.with_tax).parameters\n"
                "    assert cart.total_price(c) == 1080\n"),
    ]
    return out


def _repo(where: Path, task: Task, k: int) -> Path:
    root = where / "repo"
    if task[0] == "examples":
        shutil.copytree(EXAMPLES, root)
    else:
        root.mkdir()
        (root / "gen.py").write_text(_generated(k))
        (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["."]\n')
    (root / "tests").mkdir(exist_ok=True)
    (root / "tests" / "test_task.py").write_text(task[3])
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    return root


async def _one(url: str, token: str, task: Task, n: int, seed: int,
               k: int) -> tuple[bool, float, float]:
    """(passed, wall seconds, client CPU seconds) of one task at ``n``."""
    with tempfile.TemporaryDirectory(prefix="spark-best-of-") as tmp:
        root = _repo(Path(tmp), task, k)
        settings = load_settings(root, {"provider": "mock", "base_url": url + "/v1"},
                                 {**os.environ, "SPARK_API_KEY": token})
        settings = dataclasses.replace(settings, best_of_check_timeout_s=60.0)
        check = f"{sys.executable} -m pytest -q -x -p no:cacheprovider tests/test_task.py"
        cpu, wall = time.process_time(), time.perf_counter()
        result = await race(root, settings, list(task[2]), task[1], n, check,
                            lambda cand: None, seed)
        return (result.winner is not None, time.perf_counter() - wall,
                time.process_time() - cpu)


def measure(n: int, slips: float, tps: float, seed: int, k: int) -> dict[str, float]:
    token = secrets.token_urlsafe(12)
    engine = start_engine(token, "--slips", str(slips), "--tps", str(tps))
    set_ = tasks(k)
    figures = {"tasks": float(len(set_)), "pass1": 0.0, "passN": 0.0, "wall1": 0.0,
               "wallN": 0.0, "cpuN": 0.0, "both1": 0.0, "bothN": 0.0}
    try:
        for number, task in enumerate(set_):
            runs = [asyncio.run(_one(engine.url, token, task, m, seed + 10 * number, k))
                    for m in (1, n)]
            for key, (passed, wall, _) in zip("1N", runs, strict=True):
                figures["pass" + key] += passed / len(set_)
                figures["wall" + key] += wall
                if runs[0][0]:  # the single answer passed: both ran the check to the end
                    figures["both" + key] += wall
            figures["cpuN"] += runs[1][2] / (n * len(set_))
    finally:
        engine.stop()
    return figures


def table(f: dict[str, float], n: int) -> str:
    return "\n".join([
        f"| tasks | single: pass share | best of {n}: pass share | wall best of {n} / single "
        "| the same, tasks the single passes | client CPU per candidate |",
        "|---|---|---|---|---|---|",
        f"| {f['tasks']:.0f} | {f['pass1']:.2f} | {f['passN']:.2f} | "
        f"{f['wallN'] / f['wall1']:.2f}× ({f['wallN']:.1f} s / {f['wall1']:.1f} s) | "
        f"{f['bothN'] / max(f['both1'], 1e-9):.2f}× | {f['cpuN'] * 1000:.0f} ms |"])


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("best-of")
    def bench_best_of(
        n: int = typer.Option(4, "--best-of", min=2, max=8, help="Candidates per race."),
        slips: float = typer.Option(0.4, "--slips", min=0.0, max=1.0,
                                    help="The engine's share of answers that err."),
        tps: float = typer.Option(2000.0, "--tps", help="The engine's tokens per second."),
        seed: int = typer.Option(1, "--seed", help="Seeds every answer (reproducible)."),
        per_kind: int = typer.Option(4, "--per-kind", min=1,
                                     help="Generated tasks per kind (4 kinds; 6 more on "
                                          "examples/repo)."),
        docs: Path | None = DOCS_OPTION,
        no_docs: bool = NO_DOCS_OPTION,
    ) -> None:
        """Single answer against best of N: pass shares, wall ratio, client CPU."""
        figures = measure(n, slips, tps, seed, per_kind)
        command = (f"spark bench best-of --best-of {n} --slips {slips:g} --tps {tps:g} "
                   f"--seed {seed} --per-kind {per_kind}")
        report(table(figures, n), command, SECTION, docs, no_docs)

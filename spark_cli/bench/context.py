"""`spark bench context`: what building a turn's context costs, first and second time.
The real ``build_request`` on a copy of ``--repo`` and on a generated tree: first build, next
process (the cache file), next turn, new prompt. ``--windows``: the fixed part per window."""

from __future__ import annotations

import random
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import typer

from spark_cli.bench.figures import bench_command
from spark_cli.session.building.request import build_request
from spark_cli.session.config.settings import load_settings, with_window
from spark_cli.session.context import index
from spark_cli.session.context.index import RepoIndex
from spark_cli.tools.repo_files import VENDORED

SECTION = "## Context"


def generate_tree(root: Path, files: int, seed: int = 7) -> tuple[str, str]:
    """``files`` Python modules under ``root``; (a file to send, a symbol to rename)."""
    rng = random.Random(seed)
    packages = max(1, files // 50)
    names = [(f"pkg{p:02d}", f"mod{m:03d}") for p in range(packages)
             for m in range(files // packages + (1 if p < files % packages else 0))][:files]
    imported: set[str] = set()
    for package, module in names:
        (root / "src" / package).mkdir(parents=True, exist_ok=True)
        others = rng.sample(names, k=min(3, len(names)))
        imported.update(f"{p}_{m}_helper_{i}" for i, (p, m) in enumerate(others))
        lines = [f'"""{package}.{module}: generated for spark bench context."""', ""]
        lines += [f"from {p}.{m} import {p}_{m}_helper_{i}"
                  for i, (p, m) in enumerate(others)]
        lines += ["", "", f"class {package.title()}{module.title()}Store:",
                  '    """Keeps things."""', ""]
        for k in range(3):
            p, m = others[k % len(others)]
            lines += [f"    def method_{k}(self, value):",
                      f"        return {p}_{m}_helper_{k % len(others)}(value) + {k}", ""]
        for k in range(5):
            lines += ["", f"def {package}_{module}_helper_{k}(value):",
                      f'    """Helper {k}."""',
                      f"    total = value * {k + 1}",
                      "    for step in range(3):",
                      "        total += step",
                      "    return total", ""]
        (root / "src" / package / f"{module}.py").write_text("\n".join(lines) + "\n")
    used = [(p, m) for p, m in names if f"{p}_{m}_helper_1" in imported]
    package, module = used[0] if used else names[0]
    return f"src/{package}/{module}.py", f"{package}_{module}_helper_1"


def _build(root: Path, file: str, symbol: str, prompt: str = "rename {} to {}_renamed"
           ) -> tuple[float, Any]:
    settings = load_settings(root, {}, {"SPARK_CONFIG_DIR": str(root / ".no-config")})
    started = time.perf_counter()
    built = build_request(settings, root, [file], prompt.format(symbol, symbol))
    return time.perf_counter() - started, built.context


def measure(root: Path, file: str, symbol: str, reps: int) -> dict[str, Any]:
    """Median seconds of the first build, the next process's and the next turn's."""
    times: dict[str, list[float]] = {"first": [], "next_process": [], "next_turn": [],
                                     "new_prompt": []}
    report: Any = None
    files = 0
    for _ in range(reps):
        shutil.rmtree(root / ".spark", ignore_errors=True)
        index._INDEXES.clear()
        seconds, report = _build(root, file, symbol)
        times["first"].append(seconds)
        index._INDEXES.clear()
        times["next_process"].append(_build(root, file, symbol)[0])
        times["next_turn"].append(_build(root, file, symbol)[0])
        other = next(n for n in sorted(index.index_for(root).definers())
                     if n != symbol and len(n) >= 8)
        times["new_prompt"].append(_build(root, file, other, "add a docstring to {}")[0])
        files = len(index.index_for(root).tags)
    return {"files": files, **{k: statistics.median(v) for k, v in times.items()},
            "map_tokens": report.map.tokens, "map_files": report.map.files,
            "definitions": report.map.available, "references": len(report.files) - 1}


def run_benchmark(repo: Path, files: int, reps: int, workdir: Path) -> list[dict[str, Any]]:
    own = workdir / "repo"
    shutil.copytree(repo, own, symlinks=True,
                    ignore=shutil.ignore_patterns(*VENDORED, "*.egg-info"))
    generate_tree(workdir / "warm", 3)  # an untimed index: grammar and imports not timed
    RepoIndex(workdir / "warm", disk_cache=False).refresh()
    mine = measure(own, *_sample(own), reps)
    generated = measure(workdir / "generated", *generate_tree(workdir / "generated", files), reps)
    return [{"tree": f"this repo ({repo.resolve().name})", **mine},
            {"tree": f"generated, {files:,} Python files", **generated}]


def _sample(root: Path) -> tuple[str, str]:
    """A file of ``root`` and a symbol it defines (the bench's rename)."""
    if (root / "spark_cli" / "session" / "building" / "request.py").is_file():
        return "spark_cli/session/building/request.py", "build_request"
    for path in sorted(root.rglob("*.py")):
        if ".spark" not in path.parts:
            return path.relative_to(root).as_posix(), "main"
    raise typer.BadParameter(f"{root} has no Python file to send")


def table(results: list[dict[str, Any]]) -> str:
    rows = [f"| {r['tree']} | {r['files']:,} | {r['first']:.2f} s | {r['next_process']:.3f} s | "
            f"{r['next_turn']:.3f} s | {r['new_prompt']:.3f} s | {r['map_tokens']:,} "
            f"({r['map_files']} files) | {r['references']} |" for r in results]
    return "\n".join(["| tree | files | first build | next process (disk cache) | next turn, "
                      "same prompt | next turn, new prompt | map tokens | files mentioning "
                      "the symbol |", "|---|---|---|---|---|---|---|---|", *rows])


WINDOWS = (2_048, 4_096, 8_192, 32_768, 128_000)


def window_table(repo: Path, file: str = "src/shop/cart.py",
                 prompt: str = "add a docstring to every function") -> str:
    """Per window size, the tokens of a one-file edit's request: the fixed part, map, file."""
    base = load_settings(repo, {"tools": True}, {})
    rows = ["| window | reserve | system prompt | tool specs | fixed | map | file + prompt "
            "| request | may send |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for window in WINDOWS:
        settings = with_window(base, window, "flag")
        built = build_request(settings, repo, [file], prompt)
        parts = built.context.parts
        fixed = parts["instructions"] + parts["AGENTS.md"] + parts["tools"]
        rows.append(f"| {window:,} | {settings.max_output_tokens:,} | "
                    f"{parts['instructions'] + parts['AGENTS.md']:,} | {parts['tools']:,} | "
                    f"{fixed:,} | {parts['map']:,} | {parts['files'] + parts['prompt']:,} | "
                    f"{built.input_tokens:,} | {settings.input_budget:,} |")
    return "\n".join(rows)


def bench_context(
    repo: Path = typer.Option(Path("."), "--repo", help="The repo to measure (copied)."),
    files: int = typer.Option(2000, "--files", min=1, help="Size of the generated tree."),
    reps: int = typer.Option(3, "--reps", min=1, help="Repetitions (medians)."),
    windows: bool = typer.Option(False, "--windows", help="Instead: a request's fixed "
                                 "overhead per window size (docs/providers.md)."),
) -> tuple[str, str]:
    """Time the repo map and context building: first build, next process, next turn."""
    if windows:
        typer.echo(window_table(repo))
        raise typer.Exit()
    with tempfile.TemporaryDirectory(prefix="spark-bench-context-") as tmp:
        results = run_benchmark(repo, files, reps, Path(tmp))
    return table(results), f" --files {files} --reps {reps}"


register = bench_command("context", SECTION, bench_context)

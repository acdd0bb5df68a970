"""`make demo`: a few `spark edit` runs on a copy of examples/repo, against the bundled engine.

No key and no network: `--provider mock` starts the bundled mock engine
in-process on a loopback port. The copy lives in a temp dir that is removed at
the end, so the checkout is never touched. Exit status: non-zero if any step
did not exit 0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SPARK = [sys.executable, "-m", "spark_cli"]

STEPS: list[tuple[str, list[str], str | None]] = [
    ("rename a function across its call sites",
     ["edit", "src/shop/cart.py", "-m", "rename total_price to cart_total"], None),
    ("remove debug logging from JavaScript",
     ["edit", "web/cart.js", "-m", "remove console.log"], None),
    ("a dry run: show the edit, write nothing",
     ["edit", "src/shop/pricing.py", "--dry-run", "-m", "add a docstring to apply_discount"],
     None),
    ("the pipe filter: stdin in, edited file out (prose on stderr)",
     ["edit", "-m", "add a docstring to with_tax"], "src/shop/pricing.py"),
]


def main() -> int:
    failures = 0
    with tempfile.TemporaryDirectory(prefix="spark-demo-") as tmp:
        repo = Path(tmp) / "repo"
        shutil.copytree(HERE / "repo", repo, ignore=shutil.ignore_patterns("__pycache__"))
        config = Path(tmp) / "config"
        config.mkdir()
        # a user config must not send the demo to a real provider
        env = {**os.environ, "SPARK_CONFIG_DIR": str(config), "NO_COLOR": "1"}
        for title, args, stdin_file in STEPS:
            argv = [*args, "--provider", "mock"]
            shown = "spark " + " ".join(a if " " not in a else repr(a) for a in argv)
            if stdin_file:
                shown = f"cat {stdin_file} | {shown}"
            print(f"\n=== {title}\n$ {shown}", flush=True)
            stdin = (repo / stdin_file).read_bytes() if stdin_file else None
            done = subprocess.run([*SPARK, *argv], cwd=repo, env=env, input=stdin,
                                  stdout=subprocess.PIPE if stdin_file else None, timeout=120)
            if stdin_file:
                print("--- stdout (the edited file):", flush=True)
                sys.stdout.write(done.stdout.decode("utf-8", "replace"))
            if done.returncode != 0:
                print(f"!!! exit code {done.returncode}", flush=True)
                failures += 1
        print("\n=== the repo copy afterwards (git-style summary)")
        for path in sorted(p for p in repo.rglob("*") if p.is_file() and ".spark" not in p.parts):
            original = HERE / "repo" / path.relative_to(repo)
            if not original.exists() or original.read_bytes() != path.read_bytes():
                print(f"  changed: {path.relative_to(repo)}")
    print("\nDone: examples/repo itself was not touched." if not failures else
          f"\n{failures} step(s) failed.")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

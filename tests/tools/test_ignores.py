"""Ignore files read once with pathspec, then from the cache: the same walk either way."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from spark_cli.tools.ignores import IgnoreCache, combined, pathspec_stamp
from spark_cli.tools.repo_files import walk as scan

TREE = {
    ".gitignore": "*.log\n/out/\ndocs/**/draft*\n__generated__/\n*.tmp\n",
    "src/.gitignore": "secret_*.py\n",
    "src/app.py": "x = 1\n", "src/secret_key.py": "k = 1\n", "debug.log": "noise\n",
    "out/x.py": "y = 2\n", "src/out/kept.py": "z = 3\n", "docs/a/draft1.md": "d\n",
    "docs/a/final.md": "f\n", "pkg/__generated__/g.py": "g\n", "pkg/h.tmp": "t\n",
    ".git/info/exclude": "local_*.py\n", "local_notes.py": "n\n",
}
SCAN_AND_SAY = ("import sys\n"
                "from spark_cli.tools.repo_files import walk as scan\n"
                "print(scan({root!r}).paths(), 'pathspec' in sys.modules)\n")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _scan_in_a_new_process(root: Path) -> tuple[list[str], bool]:
    code = SCAN_AND_SAY.format(root=str(root))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    paths, loaded = done.stdout.rsplit("]", 1)
    return json.loads((paths + "]").replace("'", '"')), loaded.strip() == "True"


def test_the_second_run_answers_the_same_without_pathspec(tmp_path: Path) -> None:
    _write(tmp_path, TREE)
    first, loaded_first = _scan_in_a_new_process(tmp_path)
    assert first == [".gitignore", "docs/a/final.md", "src/.gitignore", "src/app.py",
                     "src/out/kept.py"]
    assert loaded_first  # a new ignore file: read with pathspec, its regex kept
    assert (tmp_path / ".spark" / "cache" / "ignores.json").is_file()
    again, loaded_again = _scan_in_a_new_process(tmp_path)
    assert again == first and not loaded_again
    (tmp_path / "src" / ".gitignore").write_text("secret_*.py\napp.py\n")  # changed: pathspec
    changed, loaded_changed = _scan_in_a_new_process(tmp_path)
    assert "src/app.py" not in changed and loaded_changed


def test_a_negation_always_goes_through_pathspec(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.log\n!keep.log\n", "a.log": "", "keep.log": ""})
    assert scan(tmp_path).paths() == [".gitignore", "keep.log"]
    assert scan(tmp_path).paths() == [".gitignore", "keep.log"]  # cached as "needs pathspec"
    cached = json.loads((tmp_path / ".spark" / "cache" / "ignores.json").read_text())
    assert list(cached["files"].values()) == [None]


@pytest.mark.parametrize("junk", ["not json", '{"version": 1, "files": {"x": 3}}', "[]"])
def test_a_corrupt_cache_is_ignored_and_rewritten(tmp_path: Path, junk: str) -> None:
    _write(tmp_path, {".gitignore": "*.log\n", "a.log": "", "b.py": ""})
    cache = tmp_path / ".spark" / "cache" / "ignores.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(junk)
    assert scan(tmp_path).paths() == [".gitignore", "b.py"]
    assert json.loads(cache.read_text())["version"] == 1


def test_the_combined_regex_matches_what_pathspec_matches(tmp_path: Path) -> None:
    import pathspec

    lines = ["*.log", "/build/", "docs/**/draft*", "a?c", "[ab]x", "deep/**", "# comment", ""]
    spec = pathspec.GitIgnoreSpec.from_lines(lines)
    source = combined(spec)
    assert source is not None
    rules = IgnoreCache(tmp_path).rules("\n".join(lines))
    assert rules.quick is not None and rules.quick.pattern == source
    for name in ["x.log", "sub/x.log", "build/", "src/build/", "docs/a/b/draft2", "abc",
                 "ax", "cx", "deep/a/b", "deep/", "keep.py", "docs/final"]:
        assert bool(rules.quick.match(name)) == bool(spec.check_file(name).include), name


def test_a_cache_written_by_another_pathspec_is_not_trusted(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.log\n", "a.log": "", "b.py": ""})
    assert scan(tmp_path).paths() == [".gitignore", "b.py"]
    cache = tmp_path / ".spark" / "cache" / "ignores.json"
    kept = json.loads(cache.read_text())
    assert kept["pathspec"] == pathspec_stamp() and kept["pathspec"]
    # another pathspec wrote it, with a regex that would ignore b.py too
    kept["pathspec"] = "/elsewhere/pathspec/__init__.py:1:1"
    kept["files"] = dict.fromkeys(kept["files"], r"^(?:.*\.log|b\.py)$")
    cache.write_text(json.dumps(kept))
    assert scan(tmp_path).paths() == [".gitignore", "b.py"]  # pathspec's answer, not the cache's
    assert json.loads(cache.read_text())["pathspec"] == pathspec_stamp()  # rewritten

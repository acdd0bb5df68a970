"""The repo's files: .gitignore (root, nested, negation), vendored folders, binary and huge."""

from __future__ import annotations

from pathlib import Path

from spark_cli.session.context.targets import MAX_FILE_BYTES, scan
from spark_cli.tools.repo_files import ignore_rules


def _write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path.write_text(data)


def test_scan_honours_gitignore_and_skips_what_is_not_code(tmp_path: Path) -> None:
    _write(tmp_path, {
        ".gitignore": "*.log\n!keep.log\nbuild/\n",
        "src/app.py": "x = 1\n",
        "src/.gitignore": "secret_*.py\n",
        "src/secret_key.py": "k = 1\n",
        "debug.log": "noise\n",
        "keep.log": "kept\n",
        "build/out.py": "y = 2\n",
        "node_modules/lib/index.js": "z\n",
        "logo.png": b"\x89PNG\x00",
        "big.py": "a = 1\n" * (MAX_FILE_BYTES // 6 + 10),
        ".git/config": "[core]\n",
        ".spark/cache/tags.json": "{}",
    })
    repo = scan(tmp_path)
    assert repo.paths() == [".gitignore", "keep.log", "src/.gitignore", "src/app.py"]
    assert not repo.truncated


def test_scan_stops_at_the_file_limit(tmp_path: Path) -> None:
    _write(tmp_path, {f"m{i}.py": "x\n" for i in range(5)})
    repo = scan(tmp_path, max_files=3)
    assert len(repo.files) == 3 and repo.truncated


def test_ignored_says_which_rule(tmp_path: Path) -> None:
    _write(tmp_path, {".gitignore": "*.log\ngen/\n", "pkg/.gitignore": "gen_*.py\n",
                      "pkg/gen_a.py": "", "pkg/ok.py": ""})
    rules = ignore_rules(tmp_path)
    assert rules.ignored("pkg/ok.py") is None
    assert rules.ignored("app.log") == "it is ignored by .gitignore (pattern '*.log')"
    assert rules.ignored("gen/x.py") == "it is ignored by .gitignore (pattern 'gen/')"
    assert rules.ignored("pkg/gen_a.py") == "it is ignored by .gitignore (pattern 'gen_*.py')"
    assert rules.ignored("vendor/lib.py") == ("it is inside vendor/, a vendored or generated "
                                              "folder")

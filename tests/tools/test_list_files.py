"""list_files: sorted repo-relative paths honouring .gitignore, the cap and its trailer."""

from __future__ import annotations

import json
from pathlib import Path

from spark_cli.tools import ToolResult
from spark_cli.tools.list_files import MAX_SHOWN
from spark_cli.tools.run import run_tool


def _list(root: Path, **args: object) -> ToolResult:
    return run_tool(root, "list_files", json.dumps(args))


def test_lists_sorted_paths_honouring_gitignore(make_repo) -> None:
    root = make_repo({
        ".gitignore": "*.log\n", "src/b.py": "", "src/a.py": "", "src/sub/c.py": "",
        "debug.log": "", "logo.png": b"\x89PNG\x00", "src/.gitignore": "sub/\n",
        ".git/HEAD": "ref\n", "node_modules/x/index.js": "", "build/out.o": b"\x00",
        "src/.a.py.1.x.spark-tmp": "",
    })
    got = _list(root)
    assert got == ToolResult(True, ".gitignore\nlogo.png\nsrc/.gitignore\nsrc/a.py\nsrc/b.py",
                             "5 files")


def test_a_folder_a_file_and_a_vendored_folder(make_repo) -> None:
    root = make_repo({"src/a.py": "", "src/sub/b.py": "", "top.py": "",
                      "node_modules/x/index.js": ""})
    assert _list(root, path="src").output == "src/a.py\nsrc/sub/b.py"
    assert _list(root, path="./src/sub/").output == "src/sub/b.py"
    assert _list(root, path="top.py") == ToolResult(True, "top.py", "1 file")
    assert _list(root, path="node_modules").output == "node_modules/x/index.js"
    for root_name in (".", "./", "src/..", str(root), str(root) + "/"):
        assert _list(root, path=root_name).output == _list(root).output, root_name


def test_glob(make_repo) -> None:
    root = make_repo({"src/a.py": "", "src/b.ts": "", "docs/c.md": ""})
    assert _list(root, glob="*.py").output == "src/a.py"
    assert _list(root, glob="!*.py").output == "docs/c.md\nsrc/b.ts"
    assert _list(root, path="src", glob="*.{py,ts}").output == "src/a.py\nsrc/b.ts"
    assert _list(root, glob="*.rs") == ToolResult(True, "no files", "0 files")


def test_the_cap_and_its_trailer(make_repo) -> None:
    root = make_repo({f"m/f{i:03d}.py": "" for i in range(MAX_SHOWN + 25)})
    got = _list(root)
    lines = got.output.split("\n")
    assert len(lines) == MAX_SHOWN + 1
    assert lines[0] == "m/f000.py" and lines[MAX_SHOWN - 1] == "m/f299.py"
    assert lines[-1] == "[25 more files not shown]"
    assert got.summary == f"{MAX_SHOWN + 25} files"


def test_a_missing_folder(make_repo) -> None:
    root = make_repo({"a.py": ""})
    assert _list(root, path="nope") == ToolResult(
        False, "nope: no such file or folder; list_files shows the repo's files",
        "error: no such file")

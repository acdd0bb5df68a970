"""The glob argument: gitignore-style, braces, negation, relative to the folder or the repo."""

from __future__ import annotations

import pytest

from spark_cli.tools.list_files import expand_braces, glob_filter
from spark_cli.tools.model import ToolFailure


def test_expand_braces() -> None:
    assert expand_braces("*.py") == ["*.py"]
    assert expand_braces("*.{ts,tsx}") == ["*.ts", "*.tsx"]
    assert expand_braces("{a,b}/*.{c,d}") == ["a/*.c", "a/*.d", "b/*.c", "b/*.d"]
    assert expand_braces("{x}") == ["{x}"]
    assert len(expand_braces("{a,b}" * 20)) == 256


@pytest.mark.parametrize(("glob", "under", "rel", "kept"), [
    ("*.py", "", "src/deep/a.py", True),
    ("*.py", "", "src/a.pyc", False),
    ("src/**/*.ts", "", "src/x/y.ts", True),
    ("src/**/*.ts", "", "lib/src/y.ts", False),
    ("shop/*.py", "src", "src/shop/a.py", True),
    ("!*.md", "", "README.md", False),
    ("!*.md", "", "a.py", True),
    ("tests/", "", "tests/t.py", True),
])
def test_glob_filter(glob: str, under: str, rel: str, kept: bool) -> None:
    keep = glob_filter(glob, under)
    assert keep is not None and keep(rel) is kept


def test_no_glob_and_bad_globs() -> None:
    assert glob_filter(None, "") is None and glob_filter("  ", "") is None
    for bad in ("!", "\\", "# a comment"):
        with pytest.raises(ToolFailure):
            glob_filter(bad, "")

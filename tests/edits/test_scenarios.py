"""Edit behaviour as data: every folder in scenarios/ runs through the real parser + applier.

A folder holds ``before/`` (the input tree; missing = empty), ``edit.txt`` (what a
model wrote), and ``after/`` (expected tree, compared byte for byte, exec bit too)
and/or ``refused.txt`` (a substring one refusal message must contain; without
``after/`` the tree must be unchanged). Optional: ``seen/`` (the text the model
saw, for conflicts) and ``options.toml`` (``allow_syntax_errors``, ``[symlinks]``).
The edit text is also fed in random small chunks (as streamed): same blocks.
Every applied scenario is then undone, which must give back ``before/`` exactly.
"""

from __future__ import annotations

import os
import random
import shutil
import tomllib
from pathlib import Path

import pytest

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.disk.journal import undo
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import BlockRejected, FileEdit

UNDO = ".spark/undo"  # the journal's folder in these tests

SCENARIOS = Path(__file__).parent / "scenarios"
NAMES = sorted(p.name for p in SCENARIOS.iterdir() if (p / "edit.txt").is_file())


def _tree(root: Path) -> dict[str, tuple[bytes, bool]]:
    files: dict[str, tuple[bytes, bool]] = {}
    if not root.exists():
        return files
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if rel.split("/")[0] == ".spark" or path.is_symlink() or path.is_dir():
            continue
        files[rel] = (path.read_bytes(), bool(path.stat().st_mode & 0o111))
    return files


def _parse(text: str, seed: str) -> tuple[list[FileEdit], list[object]]:
    """Parse whole, and again in random small chunks (as streamed): the blocks must agree."""
    parser = EditStreamParser()
    events = [*parser.feed(text), *parser.close()]
    rng = random.Random(seed)
    chunked = EditStreamParser()
    streamed: list[object] = []
    pos = 0
    while pos < len(text):
        size = rng.randint(1, 12)
        streamed.extend(chunked.feed(text[pos : pos + size]))
        pos += size
    streamed.extend(chunked.close())
    edits = [e for e in events if isinstance(e, FileEdit)]
    assert [e for e in streamed if isinstance(e, FileEdit)] == edits
    rejected = [e for e in events if isinstance(e, BlockRejected)]
    return edits, rejected


def test_there_are_enough_scenarios() -> None:
    assert len(NAMES) >= 40


@pytest.mark.parametrize("name", NAMES)
def test_scenario(name: str, tmp_path: Path) -> None:
    folder = SCENARIOS / name
    options = tomllib.loads((folder / "options.toml").read_text()) \
        if (folder / "options.toml").exists() else {}
    root = tmp_path / "repo"
    if (folder / "before").exists():
        shutil.copytree(folder / "before", root, symlinks=True)
    else:
        root.mkdir()
    for link, target in options.get("symlinks", {}).items():
        os.symlink(target, root / link)
    seen = None
    if (folder / "seen").exists():
        seen = {rel: data.decode() for rel, (data, _x) in _tree(folder / "seen").items()}

    edits, rejected = _parse((folder / "edit.txt").read_bytes().decode(), name)
    assert not rejected, f"parse errors: {rejected}"
    assert edits, "the scenario's edit text gave no blocks"
    applier = Applier(root, undo_dir=root / UNDO, seen=seen,
                      allow_syntax_errors=bool(options.get("allow_syntax_errors", False)))
    applier.begin_batch(name)
    outcomes = [applier.apply(edit) for edit in edits]
    applier.end_batch()

    before = _tree(folder / "before")
    expected_refusal = (folder / "refused.txt").read_text().strip() \
        if (folder / "refused.txt").exists() else None
    messages = [o.message for o in outcomes if not o.ok or getattr(o, "partial", False)]
    if expected_refusal is None:
        assert not messages, messages
    else:
        assert any(expected_refusal in m for m in messages), messages
    expected = _tree(folder / "after") if (folder / "after").exists() else before
    assert _tree(root) == expected
    assert not list(root.rglob("*.spark-tmp")), "temp files left behind"

    if expected != before:  # the whole answer is one undo checkpoint
        undo(root, root / UNDO)
        assert _tree(root) == before

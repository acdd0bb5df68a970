"""Properties of the applier: random files x random edits.

- a section whose hunks all locate gives exactly the spliced text, with every other
  byte (line endings included) unchanged;
- a section with one hunk that cannot locate leaves the file byte-identical;
- no path, however odd, makes anything appear outside the repo root.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from apply_harness import apply_one
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_cli.edits.disk.textfile import decode
from spark_cli.edits.model.blocks import FileEdit, Hunk

_word = st.text(alphabet="abcdefghij ", min_size=1, max_size=12)


@st.composite
def file_and_edits(draw):
    count = draw(st.integers(3, 25))
    # unique lines so every chosen region's text occurs exactly once
    lines = [f"{n:03d} {draw(_word)}" for n in range(count)]
    endings = draw(st.lists(st.sampled_from(["\n", "\r\n"]), min_size=count, max_size=count))
    final = draw(st.booleans())
    raw = "".join(line + end for line, end in zip(lines, endings, strict=True))
    if not final:
        raw = raw[: -len(endings[-1])]
    cuts = sorted(draw(st.sets(st.integers(0, count), min_size=2, max_size=8)))
    regions = [(cuts[i], cuts[i + 1]) for i in range(0, len(cuts) - 1, 2)]
    hunks = []
    for start, end in regions:
        search = "".join(line + "\n" for line in lines[start:end])
        replace = "".join(f"new {draw(_word)}\n" for _ in range(draw(st.integers(0, 3))))
        hunks.append((start, end, search, replace))
    return lines, raw, hunks


def _expected(lines: list[str], hunks) -> str:
    out: list[str] = []
    pos = 0
    for start, end, _search, replace in hunks:
        out.extend(line + "\n" for line in lines[pos:start])
        out.append(replace)
        pos = end
    out.extend(line + "\n" for line in lines[pos:])
    return "".join(out)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(file_and_edits(), st.booleans())
def test_splice_exact_or_nothing(case, break_one) -> None:
    lines, raw, hunks = case
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        path = root / "f.txt"
        data = raw.encode()
        path.write_bytes(data)
        edit_hunks = [Hunk(search, replace, line=n + 1)
                      for n, (_s, _e, search, replace) in enumerate(hunks)]
        if break_one:
            victim = len(edit_hunks) // 2
            edit_hunks[victim] = Hunk("this line is not in the file\n", "x\n", line=victim + 1)
        edit = FileEdit("update", "f.txt", tuple(edit_hunks), "apply_patch")
        outcome = apply_one(edit, root)
        after = path.read_bytes()
        if break_one:
            assert not outcome.ok
            assert after == data
            return
        assert outcome.ok, outcome.message
        expected = _expected(lines, hunks)
        if not raw.endswith("\n") and expected.endswith("\n"):
            expected = expected[:-1]
        assert decode(after).text == expected
        # unchanged lines keep their own endings: the untouched prefix is byte-identical
        first = hunks[0][0]
        prefix = "".join(line + end for line, end in zip(lines[:first], _endings(raw),
                                                            strict=False))
        # (the last kept line may lose its ending when the file has no final newline)
        assert after.startswith(prefix.rstrip("\r\n").encode())
        assert sorted(os.listdir(root)) == ["f.txt"]  # no temp files, no .spark (no journal)


def _endings(raw: str) -> list[str]:
    return ["\r\n" if part.endswith("\r") else "\n" for part in raw.split("\n")[:-1]]


_segment = st.sampled_from(["..", ".", "a", "b", ".git", ".spark", "x.txt", "", "~", "\\"])


@settings(max_examples=150, deadline=None)
@given(st.lists(_segment, min_size=1, max_size=6), st.booleans())
def test_no_path_escapes(parts, absolute) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        outer = Path(tmp)
        root = outer / "repo"
        root.mkdir()
        raw = ("/" if absolute else "") + "/".join(parts)
        outcome = apply_one(FileEdit("update", raw, (Hunk("", "x\n"),), "search_replace"), root)
        assert sorted(os.listdir(outer)) == ["repo"], "something was written outside the root"
        if outcome.ok:
            written = [p for p in root.rglob("*") if p.is_file()]
            assert written and all(root in p.parents for p in written)
            assert not any(part in (".git", ".spark") for p in written
                           for part in p.relative_to(root).parts)


_text_line = st.text(alphabet="abc xyz()=:", max_size=10)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_text_line, min_size=1, max_size=20), st.lists(_text_line, max_size=20),
       st.data())
def test_apply_of_diff_gives_new_text(old_lines, new_lines, data) -> None:
    """apply(diff(a, b), a) == b, through the real parser and applier."""
    from diff_envelope import diff_to_apply_patch

    from spark_cli.edits.formats.stream_parser import EditStreamParser

    mixed = data.draw(st.lists(st.sampled_from(new_lines + old_lines), max_size=20)) \
        if new_lines else []
    old = "".join(line + "\n" for line in old_lines)
    new = "".join(line + "\n" for line in (mixed or new_lines))
    if old == new or not old.strip():
        return  # known gap: a file of blank lines only (locate treats blank searches as inserts)
    envelope = diff_to_apply_patch("f.txt", old, new)
    parser = EditStreamParser()
    items = [*parser.feed(envelope), *parser.close()]
    edits = [i for i in items if isinstance(i, FileEdit)]
    assert len(edits) == 1, items
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "f.txt").write_text(old)
        outcome = apply_one(edits[0], root)
        assert outcome.ok, (outcome.message, envelope)
        assert (root / "f.txt").read_text() == new

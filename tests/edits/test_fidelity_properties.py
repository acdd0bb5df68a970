"""Fidelity property: when every context line of a hunk matches the file byte for byte,
the lines the model adds are written as the model wrote them (line endings aside).

Random files mix tab and space indentation (the file's majority must not leak into
the added lines), the model's added lines use any indentation, and the answer goes
through the real streaming parser and applier in both formats, apply_patch with
context lines prefixed or (as models often send them) not.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from spark_cli.edits.apply.applier import Applier
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import FileEdit
from spark_cli.edits.model.outcome import EditApplied

_INDENTS = ["", "", " ", "  ", "    ", "        ", "\t", "\t\t", "  \t", "\t  "]
_TEXT = st.text(alphabet="abcdefghxyz0123(){}:;,=+-_", min_size=1, max_size=14).filter(
    lambda t: t[0] not in "-+=" and t.strip() == t)
_LINE = st.one_of(st.just(""), st.tuples(st.sampled_from(_INDENTS), _TEXT).map("".join))
_CONTEXT_LINE = st.tuples(st.sampled_from(_INDENTS), _TEXT).map("".join)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[str], int, int, int, list[str], str, str]:
    lines = draw(st.lists(_LINE, min_size=2, max_size=30))
    start = draw(st.integers(0, len(lines) - 1))
    end = draw(st.integers(start + 1, min(len(lines), start + 6)))
    removed = draw(st.integers(0, end - start - 1))  # lines removed after the first context
    lines[start] = draw(_CONTEXT_LINE)  # the hunk starts on a non-blank line
    added = draw(st.lists(_LINE, min_size=1, max_size=5))
    fmt = draw(st.sampled_from(["search_replace", "apply_patch", "apply_patch_unprefixed"]))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    return lines, start, end, removed, added, fmt, ending


def _answer(context: list[str], removed: list[str], after: list[str], added: list[str],
            fmt: str) -> str:
    if fmt == "search_replace":
        search = [*context, *removed, *after]
        replace = [*context, *added, *after]
        return ("notes.txt\n<<<<<<< SEARCH\n" + "".join(s + "\n" for s in search)
                + "=======\n" + "".join(r + "\n" for r in replace) + ">>>>>>> REPLACE\n")
    keep = (lambda s: s) if fmt == "apply_patch_unprefixed" else (lambda s: " " + s)
    # (unprefixed lines that end a hunk are dropped as prose: the lines after keep theirs)
    body = ([keep(c) if c else "" for c in context] + ["-" + r for r in removed]
            + ["+" + a for a in added] + [" " + c if c else "" for c in after])
    return ("*** Begin Patch\n*** Update File: notes.txt\n@@\n"
            + "".join(b + "\n" for b in body) + "*** End Patch\n")


def _runs(lines: list[str], run: list[str]) -> int:
    return sum(lines[k:k + len(run)] == run for k in range(len(lines) - len(run) + 1))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases())
def test_byte_exact_context_writes_the_models_added_lines(case) -> None:
    lines, start, end, removed, added, fmt, ending = case
    context, gone, after = lines[start:start + 1], lines[start + 1:start + 1 + removed], \
        lines[start + 1 + removed:end]
    if fmt == "apply_patch_unprefixed":
        # a context line without its space is only read that way when it cannot be
        # read as prefixed: the first one starts with neither space nor a prefix
        assume(context[0][:1] not in (" ", "\t", "-", "+", "@", "*", "\\"))
    search = [*context, *gone, *after]
    trimmed = search[:max(k + 1 for k, line in enumerate(search) if line)]
    # found once, even without its blank last lines (a patch drops them): the context
    # decides the place
    assume(_runs(lines, trimmed) == 1)
    expected = lines[:start] + context + added + after + lines[end:]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        (root / "notes.txt").write_bytes("".join(x + ending for x in lines).encode())
        parser = EditStreamParser()
        edits = [e for e in [*parser.feed(_answer(context, gone, after, added, fmt)),
                             *parser.close()] if isinstance(e, FileEdit)]
        assert len(edits) == 1
        outcome = Applier(root).apply(edits[0])
        assert isinstance(outcome, EditApplied), outcome
        written = (root / "notes.txt").read_bytes().decode()
    assert written == "".join(x + ending for x in expected)

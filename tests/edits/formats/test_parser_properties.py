"""Properties of the streaming edit parser on random answers built with formats.py.

Random answers are prose mixed with rendered SEARCH/REPLACE blocks and apply_patch
envelopes, with LF or CRLF line ends. Whatever the chunk split, the parser gives
exactly the same items (after merging adjacent prose), every block round-trips,
and a stream cut anywhere never yields an edit for the block the cut falls in.
"""

from __future__ import annotations

import itertools
import string
from dataclasses import dataclass, field

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_cli.edits.formats.patch_envelope import BEGIN_PATCH, END_PATCH, FILE_HEADER
from spark_cli.edits.formats.rendering import render_apply_patch, render_search_replace
from spark_cli.edits.formats.search_replace import DIVIDER, REPLACE_MARK, SEARCH_MARK
from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import FileEdit, Hunk, ParsedItem, ProseDelta

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

words = st.text(string.ascii_letters + string.digits, min_size=1, max_size=8)
prose_line = st.one_of(
    st.just(""),
    st.lists(words, min_size=1, max_size=6).map(" ".join),
    st.lists(words, min_size=2, max_size=6).map(lambda w: " ".join(w) + ".")
)
prose = st.lists(prose_line, min_size=1, max_size=4).map(lambda ls: "".join(x + "\n" for x in ls))


def _is_marker(line: str) -> bool:
    """Marker lines cannot be block text; '=======' lines can (the rendered markers then
    get another width), but only two widths are drawn, so a free width always remains."""
    if DIVIDER.match(line):
        return line.strip() not in ("=====", "=======")
    return any(p.match(line) for p in (SEARCH_MARK, REPLACE_MARK, BEGIN_PATCH, END_PATCH))


code_line = st.one_of(
    st.text(string.ascii_letters + string.digits + " \t()[]{}=+-*/#:'\"`<>.,_~@$!", max_size=30),
    st.sampled_from(["```", "````python", "~~~", "*** Begin", "@@", "-", "+", " ", "=====",
                     "=======", "<<<<<<< HEAD", ">>>>>>> other", "*** End of File", "EOF"]),
).filter(lambda line: not _is_marker(line))
code = st.lists(code_line, max_size=5).map(lambda ls: "".join(x + "\n" for x in ls))
path = st.builds(lambda d, n, e: f"{d}{n}.{e}", st.sampled_from(["", "src/", "a/b/"]),
                 st.text(string.ascii_lowercase + "_", min_size=1, max_size=8),
                 st.sampled_from(["py", "md", "txt", "rs"]))
anchors = st.lists(st.lists(words, min_size=1, max_size=3).map(" ".join), max_size=2)


@st.composite
def hunks(draw: st.DrawFn) -> Hunk:
    search, replace = draw(code), draw(code)
    if not search and not replace:
        replace = "x\n"
    return Hunk(search, replace, tuple(draw(anchors)), draw(st.booleans()))


@st.composite
def file_edits(draw: st.DrawFn) -> FileEdit:
    kind = draw(st.sampled_from(["add", "delete", "update"]))
    if kind == "delete":
        return FileEdit("delete", draw(path), (), "apply_patch")
    if kind == "add":
        return FileEdit("add", draw(path), (Hunk("", draw(code)),), "apply_patch")
    move = draw(st.one_of(st.none(), path))
    return FileEdit("update", draw(path), tuple(draw(st.lists(hunks(), min_size=1, max_size=3))),
                    "apply_patch", move)


@dataclass
class Answer:
    text: str = ""
    expected: list[object] = field(default_factory=list)  # prose strings and edit shapes
    spans: list[tuple[int, int, int]] = field(default_factory=list)  # (start, end, edit index)


def shape(edit: FileEdit) -> tuple[object, ...]:
    return (edit.kind, edit.path, edit.move_to, edit.fmt,
            tuple((h.search, h.replace, h.anchors, h.at_eof) for h in edit.hunks))


@st.composite
def answers(draw: st.DrawFn) -> Answer:
    answer = Answer()
    for kind in draw(st.lists(st.sampled_from(["prose", "sr", "patch"]), min_size=1, max_size=5)):
        start = len(answer.text)
        if kind == "prose":
            text = draw(prose)
            if answer.expected and isinstance(answer.expected[-1], str):
                answer.expected[-1] += text
            else:
                answer.expected.append(text)
            answer.text += text
            continue
        if kind == "sr":
            p, search, replace = draw(path), draw(code), draw(code)
            text = render_search_replace(p, search, replace, draw(st.sampled_from([None, "",
                                                                                 "python"])))
            # How the model names the file: bare, `p`, **p**, "File: p", "## p"; maybe a blank.
            label = draw(st.sampled_from(["{}", "`{}`", "**{}**", "File: {}", "## {}", "{}:"]))
            gap = draw(st.sampled_from(["", "", "\n"]))
            text = label.format(p) + "\n" + gap + text[len(p) + 1 :]
            s = shape(FileEdit("update", p, (Hunk(search, replace),), "search_replace"))
            end = start + text.rindex(">>>>>>> REPLACE") + len(">>>>>>> REPLACE")
            answer.spans.append((start, end, len(answer.spans)))
            answer.expected.append(s)
            answer.text += text
            continue
        edits = draw(st.lists(file_edits(), min_size=1, max_size=3))
        before, after = draw(st.sampled_from([
            ("", ""), ("```\n", "```\n"), ("```diff\n", "```\n"),
            ("apply_patch <<'EOF'\n", "EOF\n"), ("```bash\napply_patch <<'EOF'\n", "EOF\n```\n"),
            ("cat <<EOF | apply_patch\n", "EOF\n"),
        ]))
        text = before + render_apply_patch(edits) + after
        offsets, pos = [], 0
        for line in text.splitlines(keepends=True):
            if FILE_HEADER.match(line) or END_PATCH.match(line):
                offsets.append(start + pos)
            pos += len(line)
        for edit, lo, hi in zip(edits, offsets, offsets[1:], strict=False):
            answer.expected.append(shape(edit))
            answer.spans.append((lo, hi + 1, len(answer.spans)))  # a cut at `hi` loses it too
        answer.text += text
    if draw(st.booleans()):  # the same answer with CRLF line ends: same blocks
        text = answer.text

        def crlf(offset: int) -> int:
            return offset + text.count("\n", 0, offset)

        answer.spans = [(crlf(lo), crlf(hi), i) for lo, hi, i in answer.spans]
        answer.expected = [x.replace("\n", "\r\n") if isinstance(x, str) else x
                           for x in answer.expected]
        answer.text = text.replace("\n", "\r\n")
    return answer


def run(chunks: list[str]) -> list[ParsedItem]:
    parser = EditStreamParser()
    items: list[ParsedItem] = []
    for chunk in chunks:
        items.extend(parser.feed(chunk))
    items.extend(parser.close())
    out: list[ParsedItem] = []
    for item in items:
        if isinstance(item, ProseDelta) and out and isinstance(out[-1], ProseDelta):
            out[-1] = ProseDelta(out[-1].text + item.text)
        else:
            out.append(item)
    return out


def split(text: str, cuts: list[int]) -> list[str]:
    points = sorted({c % (len(text) + 1) for c in cuts} | {0, len(text)})
    return [text[a:b] for a, b in itertools.pairwise(points)]


def observed(items: list[ParsedItem]) -> list[object]:
    return [i.text if isinstance(i, ProseDelta) else shape(i) if isinstance(i, FileEdit) else i
            for i in items]


@SETTINGS
@given(answers(), st.lists(st.integers(0, 10**6), max_size=40))
def test_any_split_gives_the_same_items_and_blocks_round_trip(answer: Answer,
                                                              cuts: list[int]) -> None:
    whole = run([answer.text])
    assert observed(whole) == answer.expected
    assert run(split(answer.text, cuts)) == whole


@SETTINGS
@given(answers())
def test_one_character_chunks(answer: Answer) -> None:
    assert run(list(answer.text)) == run([answer.text])


@SETTINGS
@given(answers(), st.integers(0, 10**6), st.lists(st.integers(0, 10**6), max_size=10))
def test_truncated_stream_never_yields_the_cut_block(answer: Answer, cut: int,
                                                     cuts: list[int]) -> None:
    k = cut % (len(answer.text) + 1)
    prefix = answer.text[:k]
    got = [shape(i) for i in run(split(prefix, cuts) if prefix else []) if isinstance(i, FileEdit)]
    full = [s for s in answer.expected if not isinstance(s, str)]
    assert got == full[: len(got)]
    for start, end, index in answer.spans:
        if start < k < end:
            assert len(got) <= index


@SETTINGS
@given(st.text(max_size=300), st.lists(st.integers(0, 10**6), max_size=20))
def test_arbitrary_text_never_crashes_and_is_split_independent(text: str,
                                                               cuts: list[int]) -> None:
    assert run(split(text, cuts)) == run([text])


soup_tokens = st.sampled_from([
    "\n", "\n", "\n", " ", " ", "\t", "\r\n", "x", "words here", "src/a.py", "`", "```", "````",
    "python", "~~~", "#", "## ", "**", "File:", "Path: ", "<<<<<<<", "<<<<<<< SEARCH", "=======",
    ">>>>>>>", ">>>>>>> REPLACE", "SEARCH", "REPLACE", "***", "*** Begin Patch",
    "*** End Patch", "*** Update File: ", "*** Add File: ", "*** Delete File: ", "*** Move to: ",
    "*** End of File", "@@", "@@ def f():", "-", "+", "apply_patch", "<<'EOF'", "EOF", "cat ",
    "| apply_patch", "$ ", "<", ">", "*",
])


@SETTINGS
@given(st.lists(soup_tokens, max_size=60).map("".join), st.lists(st.integers(0, 10**6),
                                                                max_size=30))
def test_marker_soup_is_split_independent(text: str, cuts: list[int]) -> None:
    whole = run([text])
    assert run(split(text, cuts)) == whole
    assert run(list(text)) == whole

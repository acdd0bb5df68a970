"""Blocks: every block addressable by line, only the lines read last kept, the rest rendered
again the same when read."""

from __future__ import annotations

from rich.console import RenderableType
from rich.segment import Segment
from textual.strip import Strip

from spark_cli.tui.transcript.answer_view import answer_view
from spark_cli.tui.transcript.kept_blocks import KEEP_LINES, Blocks, Unsettled
from spark_cli.tui.transcript.transcript import Transcript
from tests.tui.transcript_app import TranscriptApp


class _Render:
    """Renders ``"name:count"`` as ``count`` lines ``name.0``, ``name.1``, …; counts calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def __call__(self, renderable: RenderableType) -> list[Strip]:
        assert isinstance(renderable, str)
        self.calls.append(renderable)
        name, count = renderable.split(":")
        return [Strip([Segment(f"{name}.{i}")]) for i in range(int(count))]


def _texts(blocks: Blocks) -> list[str]:
    return [blocks.line(i).text for i in range(len(blocks))]


def _blocks(keep: int, *specs: str) -> tuple[Blocks, _Render]:
    render = _Render()
    blocks = Blocks(render, keep)
    for spec in specs:
        blocks.append(spec, render(spec))
    render.calls.clear()
    return blocks, render


def test_lines_let_go_are_rendered_again_the_same_and_few_are_kept() -> None:
    blocks, render = _blocks(4, "a:2", "b:3", "c:1", "d:2")
    assert len(blocks) == 8 and blocks.count == 4
    assert _texts(blocks) == ["a.0", "a.1", "b.0", "b.1", "b.2", "c.0", "d.0", "d.1"]
    assert render.calls[:2] == ["a:2", "b:3"]  # let go when c and d came
    render.calls.clear()
    assert blocks.line(7).text == "d.1" and blocks.line(6).text == "d.0"
    assert render.calls == []  # read last: kept


def test_a_block_rendered_again_keeps_its_line_count() -> None:
    again = {"a:3": [Strip([Segment("only")])], "b:1": [Strip([Segment("b.0")])]}
    blocks = Blocks(lambda r: again[str(r)], 1)  # a renders shorter the second time
    blocks.append("a:3", [Strip([Segment(f"a.{i}")]) for i in range(3)])
    blocks.append("b:1", [Strip([Segment("b.0")])])
    assert [blocks.line(i).text for i in range(4)] == ["only", "", "", "b.0"]


def test_truncate_prepend_and_drop_first_keep_lines_addressed() -> None:
    blocks, render = _blocks(3, "a:2", "b:1", "c:2")
    blocks.truncate(1)
    assert _texts(blocks) == ["a.0", "a.1"]
    blocks.prepend([("y:1", render("y:1")), ("z:2", render("z:2"))])
    assert _texts(blocks) == ["y.0", "z.0", "z.1", "a.0", "a.1"]
    assert blocks.start(2) == 3 and blocks.start(3) == 5
    assert blocks.drop_first() == 1
    assert _texts(blocks) == ["z.0", "z.1", "a.0", "a.1"]
    blocks.append("e:1", render("e:1"))
    assert _texts(blocks)[-1] == "e.0" and blocks.count == 3
    assert [strip.text for strip in blocks.all_lines()] == _texts(blocks)


def test_after_a_rewrap_a_block_read_keeps_its_count_until_replaced() -> None:
    width = {"now": 1}
    render = lambda r: [Strip([Segment(getattr(r, "view", r))])] * width["now"]  # noqa: E731
    blocks = Blocks(render, 4)
    for name in "abc":
        blocks.append(name, render(name))
    width["now"] = 2  # narrower: every block wraps to two lines
    blocks.rewrap()
    assert [blocks.line(i).text for i in range(len(blocks))] == ["a", "b", "c"]
    assert isinstance(blocks.renderable(1), Unsettled)
    blocks.replace(1, "b", render("b"))
    assert [blocks.line(i).text for i in range(len(blocks))] == ["a", "b", "b", "c"]


async def test_a_long_transcript_shows_its_first_lines_again_when_scrolled_back() -> None:
    from rich.text import Text

    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        transcript = app.query_one(Transcript)
        count = KEEP_LINES + 200
        for n in range(count):
            transcript.write(Text(f"line {n}"))
        await pilot.pause()
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert [transcript.render_line(y).text.strip() for y in range(3)] == [
            "line 0", "line 1", "line 2"]
        assert transcript.plain_text().splitlines()[count - 1] == f"line {count - 1}"


async def test_a_resized_long_transcript_renders_each_block_anew_as_it_comes_into_view() -> None:
    from rich.text import Text

    app = TranscriptApp()
    async with app.run_test(size=(60, 10)) as pilot:
        transcript = app.query_one(Transcript)
        count = KEEP_LINES + 300
        for n in range(count):
            transcript.write(Text(f"line {n} " + "word " * 8))  # 47 cells: wraps below 47
        await pilot.pause()
        assert transcript.line_count == count
        await pilot.resize_terminal(30, 10)
        await pilot.pause()
        shown = [transcript.render_line(y).text.strip() for y in range(10)]
        assert [row.split()[:2] for row in shown[::2]] == [
            ["line", str(n)] for n in range(count - 5, count)]  # the end, wrapped, at once
        assert all(row.startswith("word") for row in shown[1::2])
        assert count < transcript.line_count < count + 20  # only what was seen: counted anew
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        top = [transcript.render_line(y).text.strip() for y in range(4)]
        assert [row.split()[:2] for row in top[::2]] == [["line", "0"], ["line", "1"]]
        assert all(row.startswith("word") for row in top[1::2])


def test_a_replaced_block_moves_the_lines_after_it_and_keeps_theirs() -> None:
    blocks, render = _blocks(10, "a:1", "b:2", "c:1")
    blocks.replace(1, "b:4", render("b:4"))
    render.calls.clear()
    assert _texts(blocks) == ["a.0", "b.0", "b.1", "b.2", "b.3", "c.0"]
    assert blocks.block_at(5) == 2 and blocks.start(2) == 5
    assert render.calls == []  # c's kept lines moved with it


async def test_blocks_closed_while_hurried_render_their_markdown_once_in_view() -> None:
    app = TranscriptApp()
    async with app.run_test(size=(40, 10)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.hurry(True)
        for n in range(30):
            transcript.write_open_line(f"**b{n}** x")
            transcript.replace_open(answer_view(f"**b{n}** x"))
        await pilot.pause()
        assert transcript.plain_text().splitlines()[-1] == "**b29** x"  # plain while hurried
        transcript.hurry(False)
        await pilot.pause()
        lines = transcript.plain_text().splitlines()
        assert lines[-1] == "b29 x" and lines[0] == "**b0** x"  # only what is in view
        transcript.scroll_to(y=0, animate=False, immediate=True)
        await pilot.pause()
        assert transcript.plain_text().splitlines()[:2] == ["b0 x", "b1 x"]
        assert [transcript.render_line(y).text.strip() for y in range(2)] == ["b0 x", "b1 x"]


async def test_a_widened_transcript_settles_what_comes_into_view_while_hurried() -> None:
    from rich.text import Text

    app = TranscriptApp()
    async with app.run_test(size=(30, 10)) as pilot:
        transcript = app.query_one(Transcript)
        transcript.hurry(True)
        for n in range(40):
            transcript.write(Text(f"line {n} " + "word " * 6))  # two rows at 30, one at 60
        await pilot.pause()
        await pilot.resize_terminal(60, 10)  # the blocks in view shrink: older ones come in
        await pilot.pause()
        shown = [transcript.render_line(y).text.split()[:2] for y in range(10)]
        assert shown == [["line", str(n)] for n in range(30, 40)]

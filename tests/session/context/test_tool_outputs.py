"""The history in the window: counted, old tool outputs dropped first, then the oldest whole
turns; an overflowing output cut."""

from __future__ import annotations

from pathlib import Path

from spark_cli.protocol.channel import Message, ToolCall, ToolOutput
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.building.request import build_request
from spark_cli.session.config.settings import load_settings
from spark_cli.session.context.tool_outputs import (
    ITEM_OVERHEAD,
    cut_output,
    drop_turns,
    item_tokens,
    items_tokens,
    shrink_outputs,
)

BIG = "".join(f"line {i}: value_number = {i * 7}\n" for i in range(400))


def test_every_item_counts() -> None:
    call = ToolCall("c", "search", '{"pattern": "x"}')
    assert item_tokens(Message("user", "hello there")) == count_tokens("hello there")
    assert item_tokens(call) == count_tokens("search") + count_tokens(call.arguments) + \
        ITEM_OVERHEAD
    assert item_tokens(ToolOutput("c", BIG)) == count_tokens(BIG) + ITEM_OVERHEAD


def test_old_outputs_go_first_and_messages_never() -> None:
    items = [Message("user", "u1"), ToolCall("a", "read_file", "{}"), ToolOutput("a", BIG),
             ToolCall("b", "read_file", "{}"), ToolOutput("b", BIG), Message("user", "u2")]
    out, freed = shrink_outputs(items, 10)
    assert freed > 10
    assert out[2].output.startswith("[tool output dropped")  # type: ignore[union-attr]
    assert out[4] == items[4]  # enough was freed by the oldest
    assert [m for m in out if isinstance(m, Message)] == [items[0], items[5]]
    out, freed = shrink_outputs(items, 10**9)
    assert all(o.output.startswith("[tool output dropped") for o in out
               if isinstance(o, ToolOutput))
    assert items_tokens(out) < items_tokens(items) - 2 * count_tokens(BIG) + 200
    kept, _ = shrink_outputs(items, 10**9, keep_from=3)
    assert kept[4] == items[4]


def test_an_output_that_does_not_fit_is_cut_at_a_line_with_a_note() -> None:
    cut = cut_output(BIG, 300)
    assert count_tokens(cut) <= 300
    assert cut.splitlines()[0] == "line 0: value_number = 0"
    assert cut.rstrip().endswith("a more specific pattern)]")
    assert "of 400 lines shown" in cut
    assert cut_output("small\n", 300) == "small\n"


def test_a_new_turn_shortens_old_outputs_to_fit_the_window(tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    settings = load_settings(tmp_path, {"context_window": 14_000, "max_output_tokens": 1_000},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    history = [Message("user", "first ask"), ToolCall("a", "read_file", "{}"),
               ToolOutput("a", BIG * 2), ToolCall("b", "read_file", "{}"),
               ToolOutput("b", BIG), Message("assistant", "done")]
    assert items_tokens(history) > settings.input_budget - 4_000
    built = build_request(settings, tmp_path, ["app.py"], "next", history=history)
    assert built.history is not None
    assert built.history[2].output.startswith("[tool output dropped")  # type: ignore[union-attr]
    assert [m for m in built.history if isinstance(m, Message)] == [history[0], history[5]]
    assert built.input_tokens <= settings.input_budget
    roomy = build_request(settings, tmp_path, ["app.py"], "next", history=history[:1])
    assert roomy.history is None


def test_old_outputs_are_shortened_to_the_servers_count_of_the_window(tmp_path: Path) -> None:
    """A server that counts 1.5 tokens per spark token (``token_scale``): the history fits
    in spark's count of the window but not in the server's, so old outputs go first."""
    from dataclasses import replace

    (tmp_path / "app.py").write_text("x = 1\n")
    settings = load_settings(tmp_path, {"context_window": 24_000, "max_output_tokens": 1_000,
                                        "tools": False},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    history = [Message("user", "first ask"), ToolCall("a", "read_file", "{}"),
               ToolOutput("a", BIG * 2), Message("assistant", "done")]
    unscaled = build_request(settings, tmp_path, ["app.py"], "next", history=history)
    assert unscaled.history is None  # in spark's own count it fits
    scaled = replace(settings, token_scale=3.0)
    built = build_request(scaled, tmp_path, ["app.py"], "next", history=history)
    assert built.history is not None
    assert built.history[2].output.startswith("[tool output dropped")  # type: ignore[union-attr]
    assert built.input_tokens <= scaled.input_budget
    assert built.input_tokens == built.pieces * 3  # the server's count


def _turn(n: int, answer: str) -> list[Message | ToolCall | ToolOutput]:
    return [Message("user", f"ask {n}"), ToolCall(f"c{n}", "read_file", "{}"),
            ToolOutput(f"c{n}", "[tool output dropped]"), Message("assistant", answer)]


def test_the_oldest_whole_turns_go_until_enough_is_freed() -> None:
    items = [*_turn(1, BIG), *_turn(2, BIG), *_turn(3, "short")]
    kept, freed, dropped = drop_turns(items, 10)
    assert (kept, dropped) == (items[4:], 1)  # a turn is its message and all that answered
    assert freed == items_tokens(items[:4])
    kept, freed, dropped = drop_turns(items, items_tokens(items[:4]) + 1)
    assert (kept, dropped) == (items[8:], 2)
    assert drop_turns(items, 10**9) == ([], items_tokens(items), 3)
    assert drop_turns(items, 0) == (items, 0, 0)


def test_a_long_session_leaves_its_oldest_turns_out_instead_of_refusing(
        tmp_path: Path) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    settings = load_settings(tmp_path, {"context_window": 14_000, "max_output_tokens": 1_000},
                             {"SPARK_CONFIG_DIR": str(tmp_path / ".none")})
    history = [item for n in range(1, 6) for item in _turn(n, BIG)]  # answers, no outputs
    assert items_tokens(history) > settings.input_budget
    built = build_request(settings, tmp_path, ["app.py"], "next", history=history)
    assert built.history is not None and built.history
    assert built.history == tuple(history[-len(built.history):])  # the newest turns, whole
    assert built.history[0] == Message("user", f"ask {6 - len(built.history) // 4}")
    gone = (len(history) - len(built.history)) // 4
    assert built.context.trimmed[0] == (f"the {gone:,} oldest turn{'s' if gone > 1 else ''} "
                                        "of the conversation left out to fit the window")
    assert built.input_tokens <= settings.input_budget
    assert built.request.messages[:-1] == built.history

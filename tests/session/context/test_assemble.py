"""A turn's context on a small synthetic repo: what travels, in which order, and trimming."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.protocol.channel import Message
from spark_cli.protocol.files import FileBlock, parse_file_blocks, render_file_blocks
from spark_cli.protocol.tokens import count_tokens
from spark_cli.session.building.request import BuiltRequest, build_request
from spark_cli.session.config.settings import Settings, load_settings
from spark_cli.session.context.assemble import MAP_HEADER

CART = '''\
from shop.pricing import apply_discount, with_tax


def total_price(cart):
    return with_tax(apply_discount(sum(cart), 10))
'''
PRICING = '''\
def apply_discount(price, percent):
    return price - price * percent // 100


def with_tax(price):
    return price + price // 5
'''
TEST = '''\
from shop.cart import total_price


def test_total():
    assert total_price([100]) == 108
'''
REPORT = "from shop import cart\n\n\ndef line(items):\n    return cart.total_price(items)\n"
RENAME = "rename total_price to cart_total"


def _settings(root: Path, **flags: object) -> Settings:
    flags.setdefault("max_output_tokens", 8192)  # the figures below keep 8,192 for the answer
    flags.setdefault("tools", False)  # windows here are sized to the prompt without tools
    return load_settings(root, flags, {"SPARK_CONFIG_DIR": str(root / ".no-user-config")})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for rel, text in {"src/shop/cart.py": CART, "src/shop/pricing.py": PRICING,
                      "tests/test_cart.py": TEST, "src/shop/report.py": REPORT,
                      "README.md": "# shop\n", "a/util.py": "def u():\n    pass\n",
                      "b/util.py": "def v():\n    pass\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def _sent(built: BuiltRequest) -> str:
    return built.request.messages[-1].content


def _exact(built: BuiltRequest) -> int:
    return count_tokens(built.request.instructions) + sum(
        count_tokens(m.content) for m in built.request.messages)


def test_a_rename_brings_every_file_that_mentions_the_symbol(repo: Path) -> None:
    built = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    assert [(f.path, f.why) for f in built.context.files] == [
        ("src/shop/cart.py", "added"),
        ("src/shop/report.py", "mentions total_price"),
        ("tests/test_cart.py", "mentions total_price")]
    assert [t.path for t in built.targets] == [f.path for f in built.context.files]
    assert built.sent == tuple(f.path for f in built.context.files)
    blocks = parse_file_blocks(_sent(built))
    assert [b.path for b in blocks] == list(built.sent)  # the map is never read as a file
    assert blocks[2].content == TEST


def test_the_map_goes_first_and_travels_once_per_conversation(repo: Path) -> None:
    built = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    sent = _sent(built)
    assert sent.startswith(MAP_HEADER + "~~~\n")
    assert "src/shop/pricing.py:\n│def apply_discount(price, percent):\n" in sent
    assert sent.index("~~~\n\n") < sent.index("src/shop/cart.py\n```python")
    assert built.user_message.content == sent  # the history keeps what was sent (chaining)
    later = build_request(_settings(repo), repo, ["src/shop/cart.py"], "now add a docstring",
                          history=(built.user_message, Message("assistant", "done")))
    assert MAP_HEADER not in _sent(later)  # the conversation has it already
    report = built.context
    assert report.map.files >= 1 and report.map.definitions >= 2 and report.map.tokens > 0
    assert built.input_tokens == report.used == _exact(built)
    assert sum(report.parts.values()) == pytest.approx(report.used, abs=12)
    assert report.trimmed == ()
    assert report.budget == report.window - _settings(repo).max_output_tokens


def test_files_named_in_the_prompt_travel_and_ambiguous_ones_are_reported(repo: Path) -> None:
    built = build_request(_settings(repo), repo, [], "tidy pricing.py and util.py")
    assert [(f.path, f.why) for f in built.context.files] == [
        ("src/shop/pricing.py", "named in the prompt")]
    assert built.context.notes == ("util.py could be a/util.py or b/util.py: name the path "
                                   "to send it",)


def test_a_named_binary_file_is_left_out_with_a_note(repo: Path) -> None:
    (repo / "data.txt").write_bytes(b"\x00\x01\x02")
    built = build_request(_settings(repo), repo, [], "look at data.txt")
    assert built.context.files == ()
    assert built.context.notes[0].startswith("data.txt (named in the prompt) not sent: ")
    assert "binary" in built.context.notes[0]


def test_unchanged_files_cost_nothing_on_the_next_turn(repo: Path) -> None:
    first = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    known = {t.path: t.sha256 for t in first.targets}
    second = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME,
                           history=(first.user_message, Message("assistant", "done")),
                           already_sent=known)
    assert second.sent == () and all(f.tokens == 0 for f in second.context.files)
    assert second.context.parts["files"] == second.context.parts["references"] == 0
    assert second.context.parts["history"] > 0
    assert second.context.map.tokens == 0  # the conversation has the map already


def _base(repo: Path) -> int:
    """Tokens of the rename request with only the added file (no map, no references)."""
    instructions = build_request(_settings(repo), repo, [], "x").request.instructions
    content = render_file_blocks([FileBlock("src/shop/cart.py", CART, "python")])
    return count_tokens(instructions) + count_tokens(content + "\n" + RENAME + "\n")


def test_the_map_is_cut_first_then_references_left_out(repo: Path) -> None:
    full = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    base = _base(repo)
    map_part = full.context.parts["map"]
    references = full.context.parts["references"]
    # room for the references and a sliver of map: the map is cut, the references stay
    window = full.input_tokens - map_part + 140 + 8192
    cut = build_request(_settings(repo, context_window=window), repo, ["src/shop/cart.py"],
                        RENAME)
    assert [f.path for f in cut.context.files] == [f.path for f in full.context.files]
    assert cut.context.map.tokens < map_part
    assert any(t.startswith("repo map") for t in cut.context.trimmed)
    # no room for the map and only one reference: the rest is left out, and said
    window = base + references - 10 + 8192
    tight = build_request(_settings(repo, context_window=window), repo, ["src/shop/cart.py"],
                          RENAME)
    assert tight.context.map.tokens == 0 and len(tight.context.files) == 2
    said = " ".join(tight.context.trimmed)
    assert "left out: its" in said and "repo map left out" in said
    assert tight.input_tokens <= tight.context.budget


@pytest.mark.parametrize("extra", [0, 1, 7, 50, 120, 333, 800, 2000])
def test_never_over_the_window(repo: Path, extra: int) -> None:
    window = _base(repo) + 8192 + extra
    built = build_request(_settings(repo, context_window=window), repo, ["src/shop/cart.py"],
                          RENAME)
    assert built.input_tokens == _exact(built) <= window - 8192


def test_a_repo_of_only_the_sent_file_gets_nothing_else(tmp_path: Path) -> None:
    """The pipe's private temp dir: no scan of anything else, no map, no cache written."""
    (tmp_path / "stdin.py").write_text(CART)
    built = build_request(_settings(tmp_path), tmp_path, ["stdin.py"], RENAME)
    expected = render_file_blocks([FileBlock("stdin.py", CART, "python")]) + "\n" + RENAME + "\n"
    assert _sent(built) == built.user_message.content == expected
    assert built.context.map.available == 0 and built.context.trimmed == ()
    assert not (tmp_path / ".spark").exists()


def test_outside_git_the_walk_stops_early_and_says_so(repo: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from spark_cli.session.context import assemble

    monkeypatch.setattr(assemble, "OUTSIDE_GIT_FILES", 3)
    built = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    assert any(n.startswith("the walk stopped at 3 files") for n in built.context.notes)
    (repo / ".git").mkdir()
    built = build_request(_settings(repo), repo, ["src/shop/cart.py"], RENAME)
    assert not any(n.startswith("the walk stopped") for n in built.context.notes)


def test_never_over_the_window_with_many_small_files(tmp_path: Path) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    root = tmp_path / "many"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "core.py").write_text("def shared_name(x):\n    return x\n")
    for i in range(40):
        (root / "pkg" / f"user{i}.py").write_text(
            f"from pkg.core import shared_name\n\n\ndef use_{i}():\n"
            f"    return shared_name({i})  {'#' * (i % 7)}\n")
    prompt = "rename shared_name to common_name"
    instructions = build_request(_settings(root), root, [], "x").request.instructions
    core = render_file_blocks([FileBlock("pkg/core.py", "def shared_name(x):\n    return x\n",
                                         "python")])
    base = count_tokens(instructions) + count_tokens(core + "\n" + prompt + "\n")

    @settings(max_examples=40, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(st.integers(min_value=0, max_value=2500))
    def check(extra: int) -> None:
        built = build_request(_settings(root, context_window=base + 8192 + extra), root,
                              ["pkg/core.py"], prompt)
        assert built.input_tokens == _exact(built) <= base + extra
        sent = [f for f in built.context.files if f.why == "mentions shared_name"]
        said = [t for t in built.context.trimmed if "(mentions shared_name) left out" in t]
        assert len(sent) + len(said) == 30  # at most 30 per turn: each sent or said left out
        assert "10 more files mention shared_name" in built.context.notes[0]

    check()

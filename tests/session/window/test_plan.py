"""What a request carries per window size: a 35-line file's edit fits a 2k window; a
learned window trims but never refuses."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from spark_cli.session.building.request import build_request
from spark_cli.session.config.settings import load_settings, with_window
from spark_cli.session.context.targets import RequestError
from spark_cli.session.window.facts import LEARNED_NOW, UNKNOWN, learned_source
from spark_cli.session.window.plan import BARE_BELOW, SHORT_BELOW, plan_for

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "repo"
PROMPT = "add a docstring to every function"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(EXAMPLE, root)
    return root


def _at(repo: Path, window: int, source: str = "server: llama.cpp /props n_ctx"):
    settings = load_settings(repo, {"provider": "openai-compatible", "model": "m",
                                    "base_url": "http://127.0.0.1:9/v1"}, {})
    return with_window(settings, window, source, token_scale=1.4)


def test_a_35_line_files_edit_fits_a_2k_window(repo: Path) -> None:
    assert len((repo / "src/shop/cart.py").read_text().splitlines()) == 35
    settings = _at(repo, 2048)
    built = build_request(settings, repo, ["src/shop/cart.py"], PROMPT)
    assert built.input_tokens <= settings.input_budget == 1536
    assert built.request.tools == () and built.context.parts["map"] == 0
    assert "too small for them" in built.request.instructions  # the note says why
    assert "Do not rewrite whole files" not in built.request.instructions  # the short prompt


def test_the_fixed_part_shrinks_with_the_window(repo: Path) -> None:
    sizes = {}
    for window in (BARE_BELOW - 1, SHORT_BELOW - 1, SHORT_BELOW):
        built = build_request(_at(repo, window), repo, ["src/shop/cart.py"], PROMPT)
        sizes[window] = built.context.parts["instructions"] + built.context.parts["tools"]
    assert sizes[BARE_BELOW - 1] < sizes[SHORT_BELOW - 1] < sizes[SHORT_BELOW]
    short = build_request(_at(repo, 6000), repo, ["src/shop/cart.py"], PROMPT).request
    assert short.tools and all("description" not in p
                               for spec in short.tools
                               for p in spec.parameters["properties"].values())
    assert plan_for(_at(repo, 6000)).repo_map and not plan_for(_at(repo, 2000)).repo_map


def test_the_answer_reserve_scales_with_the_window(repo: Path) -> None:
    assert [_at(repo, w).max_output_tokens for w in (2048, 8192, 128_000)] == [512, 2048, 8192]


def test_a_stated_window_refuses_with_the_figures_a_learned_one_sends_anyway(
        repo: Path) -> None:
    (repo / "big.py").write_text("".join(f"def f{i}(x):\n    return x * {i}\n"
                                         for i in range(400)))
    with pytest.raises(RequestError) as refused:
        build_request(_at(repo, 2048), repo, ["big.py"], PROMPT)
    assert "big.py is" in str(refused.value) and "the window is 2,048 tokens" in str(refused.value)
    for source in (learned_source(2048, 0.0), UNKNOWN):
        built = build_request(_at(repo, 2048, source), repo, ["big.py"], PROMPT)
        assert built.input_tokens > 1536  # sent: the server's answer will tell
        assert any("not the server's word" in note for note in built.context.notes)
    with pytest.raises(RequestError):  # this session's server just said it: a limit
        build_request(_at(repo, 2048, LEARNED_NOW), repo, ["big.py"], PROMPT)

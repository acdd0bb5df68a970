"""A turn's tokens and cost: the server's figures summed, counted where it sent none, priced
from ``[pricing]`` or the built-in rows (unknown: None, never 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from spark_cli.protocol.channel import TurnFinished, UsageReported
from spark_cli.session.config.layers import SettingsError
from spark_cli.session.config.pricing import BUILT_IN, Price
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.session.events import TurnCompleted
from spark_cli.session.spend.usage import Usage, UsageMeter, tokens_line, total
from tests.session.test_turn_s1 import PY, Script, collect


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".spark").mkdir(parents=True)
    (root / "app.py").write_text(PY)
    return root


def _settings(repo: Path, project: str = "", user: str = "", **flags: object):
    cfg = repo.parent / "cfg"
    cfg.mkdir(exist_ok=True)
    (cfg / "config.toml").write_text(user)
    (repo / ".spark" / "config.toml").write_text(project)
    return load_settings(repo, flags, {"SPARK_CONFIG_DIR": str(cfg), "SPARK_API_KEY": "sk-x"})


async def test_reported_usage_is_summed_and_priced(repo: Path) -> None:
    settings = _settings(repo, user='[pricing."m"]\ninput = 2\ncached_input = 0.5\noutput = 8\n',
                         provider="openai-compatible", base_url="http://h/v1", model="m")
    events = ["a", UsageReported(1000, 10, cached_tokens=400), TurnFinished("completed")]
    out = await collect(Session(Script(events), repo, settings), "hi", ["app.py"])
    done = out[-1]
    assert isinstance(done, TurnCompleted) and done.usage is not None
    assert (done.usage.input_tokens, done.usage.cached_input_tokens,
            done.usage.output_tokens, done.usage.requests) == (1000, 400, 10, 1)
    assert not done.usage.counted and done.output_tokens == 10
    assert done.usage.cost_usd == pytest.approx((600 * 2 + 400 * 0.5 + 10 * 8) / 1e6)


async def test_a_server_that_reports_nothing_is_counted_and_said_so(repo: Path) -> None:
    settings = _settings(repo, provider="openai-compatible", base_url="http://h/v1",
                         model="someone-elses-model")
    out = await collect(Session(Script(["hello world\n", TurnFinished("completed")]), repo,
                                settings), "hi", ["app.py"])
    usage = out[-1].usage
    assert usage.counted and usage.input_tokens > 0 and usage.output_tokens > 0
    assert usage.cost_usd is None  # no price known: unknown, not 0
    assert "cost unknown" in tokens_line(usage) and "(counted)" in tokens_line(usage)


def test_prices_come_from_the_config_then_the_built_in_rows(repo: Path) -> None:
    assert _settings(repo, provider="openai", model="gpt-4.1").price == BUILT_IN["gpt-4.1"]
    mine = _settings(repo, user='[pricing."gpt-4.1"]\ninput = 1\noutput = 3\n', provider="openai",
                     model="gpt-4.1")
    assert mine.price == Price(1.0, 1.0, 3.0)  # no cached_input: the input's price
    assert mine.sources["price"].startswith("user file") and mine.sources["price"].endswith(
        "config.toml [pricing]")
    unknown = _settings(repo, provider="openai", model="gpt-9-unknown")
    assert unknown.price is None and "unknown" in unknown.sources["price"]
    assert _settings(repo).price == Price(0.0, 0.0, 0.0)  # the bundled engine runs here
    assert _settings(repo, model="gpt-4.1").price == Price(0.0, 0.0, 0.0)  # whatever it is called
    assert _settings(repo, base_url="ws://127.0.0.1:1/v1").price is None  # someone's engine


def test_a_request_on_another_model_is_priced_at_that_models_price(repo: Path) -> None:
    """A compaction's ``compact_model``, a prompt file's ``model``: ``price_for`` its own."""
    mine = _settings(repo, user='[pricing."small"]\ninput = 1\noutput = 3\n', provider="openai",
                     model="gpt-4.1", compact_model="small")
    assert mine.price_for("gpt-4.1") == mine.price == BUILT_IN["gpt-4.1"]
    assert mine.price_for("small") == Price(1.0, 1.0, 3.0)
    assert mine.price_for("gpt-5") == BUILT_IN["gpt-5"] and mine.price_for("gpt-9") is None
    assert _settings(repo).price_for("anything") == Price(0.0, 0.0, 0.0)  # the bundled engine


@pytest.mark.parametrize(("table", "needle"), [
    ('pricing = 3\n', "'pricing' must be a table"),
    ('[pricing]\nm = 3\n', '[pricing."m"] must be a table'),
    ('[pricing."m"]\ninput = 1\n', "'output' is missing"),
    ('[pricing."m"]\ninput = 1\noutput = -2\n', "'output' must be a number >= 0"),
    ('[pricing."m"]\ninput = "1"\noutput = 2\n', "'input' must be a number >= 0"),
    ('[pricing."m"]\ninput = 1\noutput = 2\ncache = 1\n', "unknown key 'cache'"),
])
def test_a_bad_pricing_table_names_file_model_and_key(repo: Path, table: str,
                                                      needle: str) -> None:
    with pytest.raises(SettingsError, match=r"config\.toml") as raised:
        _settings(repo, user=table)
    assert needle in str(raised.value)


def test_totals_keep_an_unknown_cost_unknown() -> None:
    known = Usage("a", 10, 0, 1, 1, cost_usd=0.5)
    both = total([known, Usage("b", 5, 2, 1, 1)])
    assert both is not None and both.cost_usd is None and both.model == "(several)"
    assert (both.input_tokens, both.cached_input_tokens, both.requests) == (15, 2, 2)
    assert total([known, known]) == Usage("a", 20, 0, 2, 2, cost_usd=1.0)
    assert total([]) is None


def test_a_request_on_another_price_is_priced_apart() -> None:
    meter = UsageMeter("fast", Price(1.0, 0.5, 2.0))
    meter.reported(1_000_000, 0, 1_000_000)
    meter.requests = 1
    meter.add(Usage("summariser", 1_000_000, 0, 0, 1, cost_usd=10.0))
    usage = meter.usage()
    assert (usage.model, usage.requests, usage.input_tokens) == ("(several)", 2, 2_000_000)
    assert usage.cost_usd == 13.0
    meter.add(Usage("unknown", 1, 0, 1, 1, cost_usd=None))
    assert meter.usage().cost_usd is None  # an unknown price stays unknown, never 0

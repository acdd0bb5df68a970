"""Registry (model names → brains, specs, cache) and the lorem brain."""

from __future__ import annotations

import itertools

import pytest

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.deep.deep_brain import DeepBrain
from spark_cli.engine.brains.lorem import LoremBrain
from spark_cli.engine.brains.registry import (
    BRAIN_MODELS,
    RegistryBrains,
    make_brain,
    pace_of_model,
)
from spark_cli.engine.brains.rules.rules_brain import RulesBrain
from spark_cli.engine.brains.script import ScriptBrain, ScriptError


def _request(prompt: str = "hello", model: str = "spark-rules") -> BrainRequest:
    return BrainRequest(model, "", (BrainTurn("user", prompt),), "search_replace")


def test_models_name_the_four_brains() -> None:
    assert BRAIN_MODELS == {"spark-rules": "rules", "spark-deep": "deep", "spark-lorem": "lorem",
                            "spark-script": "script"}


def test_only_the_deep_model_has_the_deep_pace() -> None:
    assert pace_of_model("spark-deep") == "deep"
    assert DeepBrain.pace == "deep"
    for model in ("spark-rules", "spark-lorem", "spark-script", "gpt-5.3-codex"):
        assert pace_of_model(model) == "fast"
        assert getattr(RegistryBrains("rules")(model), "pace", "fast") == "fast"
    assert isinstance(RegistryBrains("lorem")("spark-deep"), DeepBrain)
    assert isinstance(RegistryBrains("deep")("gpt-5.3-codex"), DeepBrain)


def test_make_brain_specs_and_cache() -> None:
    assert isinstance(make_brain("rules"), RulesBrain)
    assert isinstance(make_brain("lorem"), LoremBrain)
    assert isinstance(make_brain("deep"), DeepBrain)
    assert make_brain("rules") is make_brain("rules")


def test_unknown_spec_lists_the_known_ones() -> None:
    with pytest.raises(ValueError, match=r"unknown brain 'poet'.*rules, deep, lorem, script:PATH"):
        make_brain("poet")
    with pytest.raises(ValueError, match="needs a path"):
        make_brain("script:")


def test_bad_script_is_an_error_at_load(tmp_path) -> None:
    with pytest.raises(ScriptError, match="not found"):
        make_brain(f"script:{tmp_path / 'missing.toml'}")


def test_model_naming_a_brain_selects_it_other_models_get_the_default(tmp_path) -> None:
    assert isinstance(RegistryBrains("rules")("spark-lorem"), LoremBrain)
    assert isinstance(RegistryBrains("lorem")("spark-rules"), RulesBrain)
    assert isinstance(RegistryBrains("lorem")("gpt-4.1"), LoremBrain)
    assert isinstance(RegistryBrains("rules")("gpt-4.1"), RulesBrain)
    script = tmp_path / "s.toml"
    script.write_text('[[entries]]\nanswer = "hi"\n')
    assert isinstance(RegistryBrains(f"script:{script}")("x"), ScriptBrain)
    assert isinstance(RegistryBrains(f"script:{script}")("spark-script"), ScriptBrain)


def test_spark_script_without_a_script_explains() -> None:
    text = "".join(RegistryBrains("rules")("spark-script").answer(_request()))
    assert "--brain script:PATH" in text


def test_lorem_is_deterministic_and_unbounded() -> None:
    first = list(itertools.islice(LoremBrain().answer(_request("a")), 2000))
    second = list(itertools.islice(LoremBrain().answer(_request("b")), 2000))
    assert first == second
    assert len(first) == 2000 and all(chunk.endswith("\n") for chunk in first)
    assert any(chunk.startswith("def ") for chunk in first)


def test_rules_help_names_providers() -> None:
    text = "".join(RulesBrain().answer(_request("sing me a song")))
    assert "rename foo to bar" in text and "--provider" in text and "OPENAI_API_KEY" in text

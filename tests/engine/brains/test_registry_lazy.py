"""The registry imports a brain when it is first made: specs are checked without loading,
``RegistryBrains.loaded`` tells what is ready."""

from __future__ import annotations

import subprocess
import sys

import pytest

from spark_cli.engine.brains.registry import BRAIN_CLASSES, RegistryBrains
from spark_cli.engine.brains.script import ScriptBrain, ScriptError


def test_specs_are_checked_without_importing_a_brain() -> None:
    code = ("import sys\n"
            "from spark_cli.engine.brains.registry import RegistryBrains, make_brain\n"
            "for spec in ('rules', 'deep', 'lorem', 'script'):\n"
            "    RegistryBrains(spec)\n"
            "loaded = lambda: sorted(m.rsplit('.', 1)[-1] for m in sys.modules if m in ("
            "'spark_cli.engine.brains.rules.rules_brain', 'spark_cli.engine.brains.lorem',"
            " 'spark_cli.engine.brains.deep.deep_brain', 'spark_cli.engine.brains.script'))\n"
            "print(loaded(), 'tomllib' in sys.modules)\n"
            "make_brain('rules')\n"
            "print(loaded())\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.splitlines() == ["[] False", "['rules_brain']"]


def test_every_brain_class_is_where_the_table_says() -> None:
    import importlib

    for kind, where in BRAIN_CLASSES.items():
        module, _, name = where.partition(":")
        cls = getattr(importlib.import_module(module), name)
        assert cls.name == kind


def test_bad_specs_and_defaults_fail_at_the_check(tmp_path) -> None:
    with pytest.raises(ValueError, match=r"unknown brain 'poet'.*rules, deep, lorem"):
        RegistryBrains("poet")
    with pytest.raises(ValueError, match="needs a path"):
        RegistryBrains("script:")
    with pytest.raises(ScriptError, match="not found"):
        RegistryBrains(f"script:{tmp_path / 'missing.toml'}")
    RegistryBrains("script")  # no script: spark-script explains itself, nothing to load


def test_loaded_says_whether_making_the_brain_imports_or_reads_anything(tmp_path) -> None:
    script = tmp_path / "fresh.toml"
    script.write_text('[[entries]]\nanswer = "hi"\n')
    brains = RegistryBrains(f"script:{script}")
    assert brains.loaded("gpt-x")
    script.write_text('[[entries]]\nanswer = "hello"\n')  # a new version: read it again
    assert not brains.loaded("gpt-x")
    assert isinstance(brains("gpt-x"), ScriptBrain)
    assert brains.loaded("gpt-x")
    rules = RegistryBrains("rules")
    assert rules.loaded("spark-script")  # no script: the explanation, nothing to load
    rules("spark-lorem")
    assert rules.loaded("spark-lorem")

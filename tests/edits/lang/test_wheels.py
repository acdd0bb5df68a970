"""Reading a grammar wheel without its ``__init__`` gives what importing it gives."""

from __future__ import annotations

import importlib
import subprocess
import sys

import pytest
import tree_sitter

from spark_cli.edits.lang import wheels
from spark_cli.edits.lang.grammars import _FACTORIES, get_language, tags_query_source

INSTALLED = sorted({(lang, module, factory) for lang, (module, factory) in _FACTORIES.items()
                    if wheels._folder(module) is not None})


def test_the_usual_grammars_are_installed():
    assert {"python", "javascript", "typescript", "rust", "go"} <= {i[0] for i in INSTALLED}


@pytest.mark.parametrize(("lang", "module", "factory"), INSTALLED)
def test_same_language_and_tags_query_as_the_imported_wheel(lang, module, factory):
    imported = importlib.import_module(module)
    lean = wheels.binding(module)
    assert lean is not None
    ours, theirs = (tree_sitter.Language(getattr(m, factory)()) for m in (lean, imported))
    assert (ours.name, ours.abi_version, ours.node_kind_count, ours.field_count) == \
        (theirs.name, theirs.abi_version, theirs.node_kind_count, theirs.field_count)
    assert get_language(lang).node_kind_count == theirs.node_kind_count
    try:
        expected = str(getattr(imported, "TAGS_QUERY", "") or "")
    except OSError:  # a wheel whose TAGS_QUERY names a missing file
        expected = None
    if expected is not None:
        assert tags_query_source(lang) == expected


def test_unknown_or_missing_wheels_fall_back():
    assert wheels.binding("tree_sitter_no_such_grammar") is None
    assert wheels.tags_query("tree_sitter_no_such_grammar") is None
    assert wheels.tags_query("tree_sitter_bash") is None  # ships no tags.scm: ask the wheel
    assert tags_query_source("bash") == ""


def test_parsing_python_never_imports_importlib_resources():
    code = ("import sys\n"
            "from spark_cli.edits.lang.grammars import get_parser, tags_query_source\n"
            "assert get_parser('python').parse(b'def f(): pass\\n').root_node.type == 'module'\n"
            "assert '@definition.function' in tags_query_source('python')\n"
            "print('importlib.resources' in sys.modules, 'tree_sitter_python' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.split() == ["False", "False"]

"""The offline grammar registry: languages by path and content, cached parsers."""

from __future__ import annotations

import subprocess
import sys

import pytest

from spark_cli.edits.lang.grammars import (
    SUPPORTED,
    get_language,
    get_parser,
    language_for_path,
    language_from_content,
    tags_query_source,
)


@pytest.mark.parametrize(("path", "language"), [
    ("src/app.py", "python"), ("types.pyi", "python"), ("a/b.JS", "javascript"),
    ("x.mjs", "javascript"), ("x.jsx", "javascript"), ("x.ts", "typescript"),
    ("x.tsx", "tsx"), ("main.go", "go"), ("lib.rs", "rust"), ("A.java", "java"),
    ("a.c", "c"), ("a.h", "c"), ("a.cpp", "cpp"), ("a.hpp", "cpp"), ("a.rb", "ruby"),
    ("Gemfile", "ruby"), ("Rakefile", "ruby"), ("run.sh", "bash"), ("a.json", "json"),
    ("a.yml", "yaml"), ("a.yaml", "yaml"), ("pyproject.toml", "toml"), ("i.html", "html"),
    ("s.css", "css"), ("README.md", "markdown"),
    ("notes.txt", None), ("Makefile", None), ("data.csv", None), ("noext", None),
])
def test_language_for_path(path: str, language: str | None) -> None:
    assert language_for_path(path) == language


@pytest.mark.parametrize(("text", "language"), [
    ("#!/usr/bin/env python3\nprint(1)\n", "python"),
    ("#!/usr/bin/python3.11\n", "python"),
    ("#!/bin/sh\necho hi\n", "bash"),
    ("#!/usr/bin/env node\nconsole.log(1)\n", "javascript"),
    ('{"a": [1, 2]}\n', "json"),
    ("[1, 2, 3]\n", "json"),
    ("package main\n\nfunc main() {}\n", "go"),
    ("use std::io;\nfn main() {}\n", "rust"),
    ("import os\n\ndef f():\n    pass\n", "python"),
    ("interface A { x: number }\n", "typescript"),
    ("const x = require('y');\n", "javascript"),
    ("#include <stdio.h>\nint main() {}\n", "cpp"),
    ("public class A {\n}\n", "java"),
    ("[tool.x]\na = 1\n", "toml"),
    ("<!DOCTYPE html>\n<html></html>\n", "html"),
    ("just some words\n", None),
    ("", None),
])
def test_language_from_content(text: str, language: str | None) -> None:
    assert language_from_content(text) == language


@pytest.mark.parametrize("name", SUPPORTED)
def test_every_supported_grammar_parses_offline(name: str) -> None:
    parser = get_parser(name)
    assert parser is get_parser(name)  # cached
    assert get_language(name) is get_language(name)
    tree = parser.parse(b"x")
    assert tree.root_node is not None


def test_unknown_language_is_a_clear_error() -> None:
    with pytest.raises(KeyError, match="no tree-sitter grammar for 'cobol'"):
        get_language("cobol")


def test_grammar_modules_are_imported_lazily() -> None:
    code = ("import sys; from spark_cli.edits.lang import grammars; grammars.get_parser('python'); "
            "print(sorted({m.split('.')[0] for m in sys.modules if m.startswith('tree_sitter_')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=60).stdout.strip()
    assert out == "['tree_sitter_python']"


def test_the_tags_query_is_the_wheels_own() -> None:
    assert "@definition.function" in tags_query_source("python")
    assert tags_query_source("bash") == ""  # the bash wheel ships none

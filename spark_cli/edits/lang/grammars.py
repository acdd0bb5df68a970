"""Offline tree-sitter grammars (the ``tree_sitter_<lang>`` wheels, imported on first use):
which language a file is, and its parser; ``None`` means text mode."""

from __future__ import annotations

import importlib
import os
import re
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # tree_sitter is imported lazily (start-up cost)
    import tree_sitter

# language name -> (module, factory function); markdown is the block grammar only
_FACTORIES: dict[str, tuple[str, str]] = {
    name: ("tree_sitter_typescript", f"language_{name}") if name in ("typescript", "tsx")
    else (f"tree_sitter_{name}", "language")
    for name in ("python", "javascript", "typescript", "tsx", "go", "rust", "java", "c", "cpp",
                 "ruby", "bash", "json", "yaml", "toml", "html", "css", "markdown")
}
SUPPORTED: tuple[str, ...] = tuple(_FACTORIES)

_EXTENSIONS: dict[str, str] = {
    ".py": "python", ".pyi": "python", ".pyw": "python",
    ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    ".ts": "typescript", ".mts": "typescript", ".cts": "typescript",
    ".tsx": "tsx",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".c": "c", ".h": "c",
    ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".c++": "cpp", ".hh": "cpp", ".hpp": "cpp",
    ".hxx": "cpp", ".h++": "cpp", ".ipp": "cpp", ".inl": "cpp",
    ".rb": "ruby", ".rake": "ruby", ".gemspec": "ruby", ".ru": "ruby",
    ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".ksh": "bash",
    ".json": "json", ".jsonc": "json",
    ".yaml": "yaml", ".yml": "yaml",
    ".toml": "toml",
    ".html": "html", ".htm": "html", ".xhtml": "html",
    ".css": "css",
    ".md": "markdown", ".markdown": "markdown", ".mdown": "markdown", ".mkd": "markdown",
}

_FILENAMES: dict[str, str] = {
    "Rakefile": "ruby", "Gemfile": "ruby", "Guardfile": "ruby", "Podfile": "ruby",
    "Vagrantfile": "ruby", "Brewfile": "ruby", "Capfile": "ruby",
    ".bashrc": "bash", ".bash_profile": "bash", ".profile": "bash", ".zshrc": "bash",
    "PKGBUILD": "bash",
    "Pipfile": "toml", "Cargo.lock": "toml", "poetry.lock": "toml",
}

_SHEBANG = r"^#!\s*(?:\S*/)?(?:env\s+(?:-\S+\s+)*)?([A-Za-z_][\w.+-]*)"
_JSON_ARRAY_STARTS = frozenset('{["-0123456789tfn]')
_SHEBANG_LANGS: dict[str, str] = {
    "python": "python", "python3": "python", "python2": "python", "pypy": "python",
    "pypy3": "python", "node": "javascript", "nodejs": "javascript", "deno": "typescript",
    "bun": "javascript", "ts-node": "typescript", "ruby": "ruby", "sh": "bash",
    "bash": "bash", "zsh": "bash", "ksh": "bash", "dash": "bash",
}


@cache
def _content_hints() -> tuple[re.Pattern[str], tuple[tuple[re.Pattern[str], str], ...]]:
    """(the shebang pattern, the line-start hints in order), compiled on first use."""
    return re.compile(_SHEBANG), (
        (re.compile(r"^package\s+\w+\s*$|^func\s+(?:\([^)]*\)\s*)?\w+\s*\(", re.M), "go"),
        (re.compile(r"^(?:pub(?:\([\w:]+\))?\s+)?(?:fn|impl|mod|use)\s+[\w:<{]", re.M), "rust"),
        (re.compile(r"^(?:public\s+|final\s+|abstract\s+)*class\s+\w+[^\n]*\{|^package\s+[\w.]+;",
                    re.M), "java"),
        (re.compile(r"^#include\s*[<\"]", re.M), "cpp"),
        (re.compile(r"^(?:from\s+[\w.]+\s+import\s|import\s+[\w.]+\s*$|(?:async\s+)?def\s+\w+\s*\(|"
                    r"class\s+\w+[^\n{]*:\s*$)", re.M), "python"),
        (re.compile(r"^(?:interface|type)\s+\w+[^\n]*[={]|^(?:export\s+)?(?:const|let)\s+\w+\s*:\s*\w",
                    re.M), "typescript"),
        (re.compile(r"^(?:import\s[^\n]*\sfrom\s|export\s|(?:async\s+)?function\s*\w*\s*\(|"
                    r"(?:const|let|var)\s+\w+\s*=)", re.M), "javascript"),
        (re.compile(r"^(?:def|module|class)\s+[\w:]+[^\n:]*$(?:[\s\S]*?)^end\b", re.M), "ruby"),
        (re.compile(r"^<!doctype html|^<html[\s>]", re.M | re.I), "html"),
        (re.compile(r"^\[[\w.\"-]+\]\s*$", re.M), "toml"),
    )


def language_for_path(path: str) -> str | None:
    """The language of ``path`` by file name or extension; ``None`` = text mode."""
    base = os.path.basename(path)
    if base in _FILENAMES:
        return _FILENAMES[base]
    _root, ext = os.path.splitext(base)
    return _EXTENSIONS.get(ext.lower())


def language_from_content(text: str) -> str | None:
    """A cheap guess at the language of piped text from its first 4 KiB; None: text mode."""
    head = text[:4096]
    stripped = head.lstrip("\ufeff")
    shebang, hints = _content_hints()
    m = shebang.match(stripped)
    if m:
        interpreter = m.group(1)
        return (_SHEBANG_LANGS.get(interpreter)
                or _SHEBANG_LANGS.get(interpreter.rstrip("0123456789.")))
    body = stripped.strip()
    if not body:
        return None
    tail = text.rstrip()[-1:]
    if body[0] == "{" and tail == "}":
        return "json"
    if body[0] == "[" and tail == "]" and body[1:].lstrip()[:1] in _JSON_ARRAY_STARTS:
        return "json"
    low = body[:64].lower()
    if low.startswith(("<!doctype html", "<html")):
        return "html"
    for pattern, name in hints:
        if pattern.search(head):
            return name
    return None


@cache
def get_language(name: str) -> tree_sitter.Language:
    """The cached ``Language`` for ``name``; ``ImportError`` names the wheel when missing."""
    try:
        module_name, factory = _FACTORIES[name]
    except KeyError:
        raise KeyError(f"no tree-sitter grammar for {name!r}; known: {', '.join(SUPPORTED)}")\
            from None
    import tree_sitter  # deferred: launch -> request

    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        wheel = module_name.replace("_", "-")
        raise ImportError(f"the {name} grammar is not installed (pip install {wheel})") from exc
    return tree_sitter.Language(getattr(module, factory)())


@cache
def get_parser(name: str) -> tree_sitter.Parser:
    """The cached ``Parser`` for ``name`` (not thread-safe: spark parses on one thread)."""
    import tree_sitter  # deferred: launch -> request

    return tree_sitter.Parser(get_language(name))


def tags_query_source(name: str) -> str:
    """The grammar wheel's ``TAGS_QUERY`` for ``name`` ("" when none)."""
    module = importlib.import_module(_FACTORIES[name][0])
    return str(getattr(module, "TAGS_QUERY", "") or "")

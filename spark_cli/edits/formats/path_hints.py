"""Which words in a model's answer name a file, and which file a block is for
(`FileMemory`: what the prose before a block said about files)."""

from __future__ import annotations

import re

BARE_FILENAMES = frozenset({
    "Makefile", "makefile", "GNUmakefile", "Dockerfile", "Containerfile", "Jenkinsfile",
    "Vagrantfile", "Procfile", "Gemfile", "Rakefile", "Brewfile", "Podfile", "Fastfile",
    "Justfile", "justfile", "Caddyfile", "Snakefile", "Pipfile", "Tiltfile", "Earthfile",
    "LICENSE", "LICENCE", "COPYING", "README", "CHANGELOG", "AUTHORS", "CONTRIBUTORS",
    "NOTICE", "CODEOWNERS", "OWNERS", "BUILD", "WORKSPACE", "VERSION", "MANIFEST",
})
# Extensions a bare word in prose must end with to count as a file (`app.py`, not `os.path`).
_EXTENSION_WORDS = """
py pyi pyx ipynb js jsx mjs cjs ts tsx mts cts json jsonc json5 md mdx markdown rst txt adoc
org tex bib toml yaml yml ini cfg conf env properties lock go mod sum rs java kt kts groovy
gradle scala sc c h cc cpp cxx hpp hh hxx ino cs fs fsx vb rb erb rake gemspec php swift m mm
sh bash zsh fish ps1 psm1 bat cmd html htm xhtml css scss sass less styl vue svelte astro sql
prisma graphql gql proto thrift xml xsd xsl svg lua pl pm r rmd jl ex exs erl hrl hs lhs ml
mli clj cljs cljc edn dart tf tfvars hcl nix zig v sv vhd vhdl asm s cmake mk dockerfile
csv tsv j2 jinja jinja2 ejs hbs mustache twig liquid njk el vim cabal elm purs nim cr d
pas sol move cairo wgsl glsl hlsl frag vert http rest txtar patch diff cue dhall bzl
star gitignore gitattributes editorconfig dockerignore npmrc nvmrc babelrc eslintrc
prettierrc
"""
CODE_EXTENSIONS = frozenset(_EXTENSION_WORDS.split())

_BAD_CHARS = re.compile(r"[\s`*'\"<>|(){}\[\],;=$!?]")
_EXT = re.compile(r"[^./]\.([A-Za-z][\w+-]*)$")
_DOTFILE = re.compile(r"\.[A-Za-z][\w.-]*$")
_LABEL = re.compile(r"(?i:file(?:name)?|path)[ \t]*:[ \t]*")
# Leading markdown a prose line may carry: quotes, a heading, a bullet, a number.
_LEAD = re.compile(r"[ \t]*(?:>[ \t]*)*(#{1,6}[ \t]+|[-*+][ \t]+|\d{1,3}[.)][ \t]+)?")
_SPAN = re.compile(r"\*\*`([^`\n]+)`\*\*|`([^`\n]+)`|\*\*([^*`\n]+)\*\*|(\S+)")
_PAREN_TAIL = re.compile(r"[ \t]*\([^()]*\)[ \t]*$")
_WORD_EDGE = "\"'()[]<>,;:.!?*"


def looks_like_path(word: str, spaces: bool = False) -> bool:
    """Whether `word` (one line's path, undecorated) names a file rather than a word."""
    if not word or "://" in word or word[-1] in "./\\" or word[0] == "-":
        return False
    if _BAD_CHARS.search(word.replace(" ", "") if spaces else word):
        return False
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    if not any(c.isalnum() for c in name):
        return False
    if "/" in word.replace("\\", "/"):
        return True
    return (name in BARE_FILENAMES or _EXT.search(name) is not None
            or _DOTFILE.fullmatch(name) is not None)


def names_file(word: str, spaces: bool = False) -> bool:
    """Stricter, for words inside sentences: a path with a folder or a known extension."""
    if not looks_like_path(word, spaces):
        return False
    name = word.replace("\\", "/").rsplit("/", 1)[-1]
    if name in BARE_FILENAMES:
        return True
    ext = _EXT.search(name) or _DOTFILE.fullmatch(name)
    if ext is None:
        return False
    if "/" in word.replace("\\", "/"):
        return True
    return name.rsplit(".", 1)[-1].lower() in CODE_EXTENSIONS


def info_path(info: str) -> str | None:
    """A path in a fence's info string (```python src/a.py, ```python:src/a.py)."""
    for word in reversed(re.split(r"[\s:{}]+", info)):
        value = word.split("=", 1)[1] if "=" in word else word
        value = value.strip("\"'`")
        if value and looks_like_path(value):
            return value
    return None


def mention_path(line: str, loose: bool = False) -> str | None:
    """The one file a line introducing a block names (``loose``: any sentence), else None."""
    lead = _LEAD.match(line)
    assert lead is not None
    heading = (lead.group(1) or "").startswith("#")
    body = line[lead.end():].strip()
    label = _LABEL.match(body)
    if label is not None:
        body = body[label.end():]
    introduces = body.rstrip("*` \t").endswith(":")
    found: list[str] = []
    rest: list[str] = []
    for match in _SPAN.finditer(body):
        decorated = match.group(1) or match.group(2) or match.group(3)
        if decorated is not None:
            word = decorated.strip().rstrip(":")
            if names_file(word, spaces=True):
                found.append(word)
                continue
        else:
            word = match.group(4).strip(_WORD_EDGE)  # a bare word loses its ':' or '.'
            if names_file(word):
                found.append(word)
                continue
        rest.append(match.group(0))
    if len(set(found)) != 1:
        return None
    if introduces or heading or loose:
        return found[0]
    leftover = _PAREN_TAIL.sub("", " ".join(rest)).strip(" \t*:")
    return found[0] if not leftover else None


class FileMemory:
    """What the prose since the previous block said about files; `resolve` names a block's
    file from it."""

    __slots__ = ("gap", "last", "named", "sticky")

    def __init__(self) -> None:
        self.last: list[str] | None = None  # the last non-blank prose line (its pieces)
        self.gap = 0  # blank prose lines since then
        self.named: list[str] | None = None  # the last heading, bold or lone path line
        self.sticky: str | None = None  # the previous block's file

    def line(self, pieces: list[str]) -> None:
        """A complete non-blank prose line, as the pieces it came in."""
        self.last, self.gap = pieces, 0
        head = pieces[0].lstrip() if pieces else ""
        if head.startswith(("#", "**")):
            self.named = pieces

    def blank(self) -> None:
        self.gap += 1

    def path_line(self, path: str) -> None:
        """A path line that introduced no block (prose followed it)."""
        self.named = [f"`{path}`"]

    def resolve(self, path: str | None) -> tuple[str | None, str | None]:
        """(the block's file, a weak file for a non-empty SEARCH); the prose is used up."""
        if path is None and self.last is not None and self.gap <= 1:
            path = mention_path("".join(self.last))
        if path is None and self.named is not None:
            path = mention_path("".join(self.named))
        weak = None
        if path is None and self.sticky is None and self.last is not None and self.gap <= 1:
            weak = mention_path("".join(self.last), loose=True)
        path = path or self.sticky
        self.sticky = path
        self.last = self.named = None
        return path, weak

    def block_done(self, path: str) -> None:
        """A block closed for ``path``: a block after it with no file reuses it."""
        if self.sticky is None:
            self.sticky = path

    def forget(self) -> None:
        """Something other than prose came (an envelope): the prose names nothing."""
        self.last = self.named = None

"""The ``reflow`` step: a search whose lines the model joined or split."""

from __future__ import annotations

import pytest

from spark_cli.edits.locate.ladder import Located, LocateFailed, locate
from spark_cli.edits.model.blocks import Hunk

WRAPPED = ("def build(config):\n"
           "    client = make_client(config.host, config.port,\n"
           "                         timeout=config.timeout, retries=3)\n"
           "    return client\n")
ANNOTATED = ('class Cli {\n    @Option(\n        names = ["--quiet"],\n        required = false\n'
             '    )\n    var quiet = false\n\n    var port = 8080\n}\n')


def apply(text: str, found: Located) -> str:
    return text[:found.start] + found.replacement + text[found.end:]


def test_a_joined_search_matches_the_wrapped_lines() -> None:
    hunk = Hunk("    client = make_client(config.host, config.port, timeout=config.timeout, "
                "retries=3)\n",
                "    client = make_client(config.host, config.port, timeout=config.timeout, "
                "retries=5)\n")
    found = locate(WRAPPED, hunk)
    assert (found.step, found.line) == ("reflow", 2)
    assert apply(WRAPPED, found) == (
        "def build(config):\n    client = make_client(config.host, config.port, "
        "timeout=config.timeout, retries=5)\n    return client\n")


def test_a_split_search_matches_a_one_line_call() -> None:
    text = 'const s = createServer({ port: 3000, host: "0.0.0.0" });\nlisten(s);\n'
    hunk = Hunk('const s = createServer({\n  port: 3000,\n  host: "0.0.0.0"\n});\n',
                'const s = createServer({\n  port: 8080,\n  host: "0.0.0.0"\n});\n')
    found = locate(text, hunk)
    assert found.step == "reflow"
    assert apply(text, found) == ('const s = createServer({\n  port: 8080,\n  host: "0.0.0.0"\n'
                                  '});\nlisten(s);\n')


def test_lines_kept_at_the_start_are_the_files_own() -> None:
    hunk = Hunk('    @Option(names = ["--quiet"], required = false)\n    var quiet = false\n',
                '    @Option(names = ["--quiet"], required = false)\n    var quiet = false\n\n'
                '    var verbose = false\n')
    found = locate(ANNOTATED, hunk)
    assert found.step == "reflow"
    assert apply(ANNOTATED, found) == ANNOTATED.replace(
        "    var quiet = false\n", "    var quiet = false\n\n    var verbose = false\n")


def test_lines_kept_at_the_end_are_the_files_own_and_indentation_follows_the_file() -> None:
    hunk = Hunk('@Option(names = ["--quiet"], required = false)\nvar quiet = false\n',
                '@Option(names = ["--quiet", "-q"], required = false)\nvar quiet = false\n')
    found = locate(ANNOTATED, hunk)
    assert apply(ANNOTATED, found) == ANNOTATED.replace(
        '    @Option(\n        names = ["--quiet"],\n        required = false\n    )\n',
        '    @Option(names = ["--quiet", "-q"], required = false)\n')


@pytest.mark.parametrize("search", [
    'const s = createServer({\n  port: 3000,\n  host: "0.0.0.0",\n});\n',  # a comma more
    "x = f(a,\n      b)\n",  # too short to name a place
])
def test_other_text_or_too_little_text_is_never_reflowed(search: str) -> None:
    text = 'const s = createServer({ port: 3000, host: "0.0.0.0" });\nx = f(a, b)\n'
    with pytest.raises(LocateFailed) as info:
        locate(text, Hunk(search, "y\n"))
    assert info.value.reason == "missing"


def test_a_match_must_cover_whole_lines() -> None:
    text = "result = compute_total(items, tax_rate)  # cached\n"
    with pytest.raises(LocateFailed):
        locate(text, Hunk("result = compute_total(\n    items, tax_rate)\n", "r = 0\n"))


def test_two_reflowed_places_are_ambiguous() -> None:
    text = "a = make_client(host,\n    port)\nb = 1\na = make_client(host, port)\n"
    with pytest.raises(LocateFailed) as info:
        locate(text, Hunk("a = make_client(\n    host, port\n)\n", "a = None\n"))
    assert info.value.reason == "ambiguous"

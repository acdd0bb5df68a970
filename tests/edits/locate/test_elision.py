"""Placeholders: matching ones are kept, edge ones dropped, REPLACE-only ones refused."""

from __future__ import annotations

import pytest

from spark_cli.edits.locate.elision import is_placeholder, split_elided, unbacked_placeholder
from spark_cli.edits.locate.ladder import Located, LocateFailed, locate
from spark_cli.edits.model.blocks import Hunk

FILE = ("def process(items):\n    total = 0\n    for item in items:\n"
        "        total += item.price\n    return total\n\n\ndef other():\n    return 1\n")


def _apply(found: Located) -> str:
    return FILE[:found.start] + found.replacement + FILE[found.end:]


@pytest.mark.parametrize("line", [
    "# ...", "    # ... existing code ...", "// ... existing code ...", "/* ... */",
    "<!-- ... -->", "{/* ... */}", "# ... rest of the function unchanged ...",
    "// rest of the code unchanged", "# (unchanged)", "// ...other methods...", "# …",
    "... existing code ...", "# existing code", "    # ...existing imports...",
])
def test_placeholders(line: str) -> None:
    assert is_placeholder(line)


@pytest.mark.parametrize("line", [
    "...", "    ...", "x = ...", "foo(...)", "# a real comment", "", "# TODO: handle the rest",
    "// ... more handlers can be added here", "# existing users are migrated below",
    "# rest api client", "print('...')", "#!/usr/bin/env python",
])
def test_not_placeholders(line: str) -> None:
    assert not is_placeholder(line)


def test_unbacked_placeholder() -> None:
    assert unbacked_placeholder(["a", "b"], "a\n# ... existing code ...\n") == \
        "# ... existing code ..."
    assert unbacked_placeholder(["a", "# ... existing code ..."], "a\n# ... existing code ...\n") \
        is None
    assert unbacked_placeholder(["a"], "a\n# ...\n", region=["a", "    # ..."]) is None
    assert unbacked_placeholder(["a"], "b\n") is None


def test_split_elided_drops_edge_placeholders_on_both_sides() -> None:
    assert split_elided(["    # ... existing code ...", "x", "y"],
                        ["    # ... existing code ...", "x", "Y"]) == [(["x", "y"], ["x", "Y"])]
    assert split_elided(["x", "# ...", ""], ["X", "# ...", ""]) == [(["x"], ["X"])]
    assert split_elided(["# ...", "# ..."], ["# ...", "# ..."]) is None


def test_a_replace_only_placeholder_is_refused() -> None:
    hunk = Hunk("def process(items):\n    total = 0\n    for item in items:\n"
                "        total += item.price\n    return total\n",
                "def process(items):\n    total = 0.0\n"
                "    # ... rest of the function unchanged ...\n")
    with pytest.raises(LocateFailed) as err:
        locate(FILE, hunk)
    assert err.value.reason == "placeholder"
    assert "'# ... rest of the function unchanged ...'" in err.value.message
    assert "in both SEARCH and REPLACE" in err.value.message


def test_a_placeholder_the_file_really_has_is_fine() -> None:
    text = "def f():\n    # ...\n    return 1\n"
    found = locate(text, Hunk("    # ...\n    return 1\n", "    # ...\n    return 2\n"))
    assert found.step == "exact" and found.replacement == "    # ...\n    return 2"
    with pytest.raises(LocateFailed):  # outside the matched lines it is not backed
        locate(text, Hunk("    return 1\n", "    # ...\n    return 2\n"))


def test_leading_placeholder_on_both_sides_is_dropped() -> None:
    found = locate(FILE, Hunk("    # ... existing code ...\n    return total\n",
                              "    # ... existing code ...\n    return round(total, 2)\n"))
    assert _apply(found) == FILE.replace("return total", "return round(total, 2)")


def test_trailing_placeholder_on_both_sides_is_dropped() -> None:
    found = locate(FILE, Hunk("def process(items):\n    total = 0\n    # ...\n",
                              "def process(items):\n    total = 0.0\n    # ...\n"))
    assert _apply(found) == FILE.replace("total = 0\n", "total = 0.0\n")


def test_matching_placeholders_that_do_not_locate_say_so_consistently() -> None:
    with pytest.raises(LocateFailed) as err:
        locate(FILE, Hunk("    # ...\n    return totl\n", "    # ...\n    return 0\n"))
    assert "both contain '# ...'" in err.value.message
    assert "only accepted when" not in err.value.message

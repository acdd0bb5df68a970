"""The TUI's shape: no import circles among its modules, no helper that reaches into the app,
and no front end that assigns the session's state."""

from __future__ import annotations

import re
from pathlib import Path

import grimp

import spark_cli

PACKAGE = Path(spark_cli.__file__).parent


def test_no_import_circle_among_tui_modules() -> None:
    graph = grimp.build_graph("spark_cli")  # type-only imports count too
    modules = sorted(m for m in graph.modules if m.startswith("spark_cli.tui."))
    circles = [(a, b) for a in modules for b in modules if a < b
               and graph.chain_exists(importer=a, imported=b)
               and graph.chain_exists(importer=b, imported=a)]
    assert circles == []


def test_no_helper_reaches_into_the_app() -> None:
    for path in (PACKAGE / "tui").rglob("*.py"):
        if path.name != "app.py":
            text = path.read_text()
            # a widget's own ``self.app`` is Textual's, not a reach into SparkApp
            assert not re.search(r"(?<![.\w])app\.[a-z_]", text), path
            assert "import SparkApp" not in text and "tui.app import" not in text, path


def test_no_front_end_assigns_session_state() -> None:
    assignment = re.compile(r"session\.[a-z_]+(\[[^]]*\])? = |session\.[a-z_]+\.(clear|append)\(")
    for folder in ("tui", "cli", "bench", "render"):
        for path in (PACKAGE / folder).rglob("*.py"):
            assert not assignment.search(path.read_text()), path

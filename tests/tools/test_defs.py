"""The tools' declarations load without the tools: a request declares them before any runs."""

from __future__ import annotations

import subprocess
import sys

from spark_cli.tools import TOOL_DEFS, defs


def test_the_declarations_load_without_the_implementations() -> None:
    code = ("import sys\nfrom spark_cli.tools import TOOL_DEFS\nassert TOOL_DEFS\n"
            "print(sorted(m for m in sys.modules if m.startswith('spark_cli.tools.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == str(["spark_cli.tools.defs", "spark_cli.tools.model"])


def test_every_declared_tool_has_its_parameters() -> None:
    assert [d.name for d in TOOL_DEFS] == list(defs.PARAMS)
    for definition in TOOL_DEFS:
        names = [p.name for p in defs.PARAMS[definition.name]]
        assert list(definition.parameters["properties"]) == names

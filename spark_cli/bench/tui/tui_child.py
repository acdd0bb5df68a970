"""`python -m spark_cli.bench.tui.tui_child fast|stock BASE_URL`: `spark` with a chosen
terminal driver (spark's fast-Esc one or Textual's stock ``LinuxDriver``), so
`spark bench tui` can time a lone Esc through both in a real terminal."""

from __future__ import annotations

import sys
from pathlib import Path

from textual.drivers.linux_driver import LinuxDriver

from spark_cli.cli.edit.edit_settings import load
from spark_cli.cli.tui_cmd import connect
from spark_cli.session.conversation import Session
from spark_cli.tui.app import SparkApp
from spark_cli.tui.setup import TuiSetup, project_root
from spark_cli.tui.tuning.fast_esc import FastEscDriver, set_escape_delay


def main(argv: list[str]) -> int:
    if len(argv) != 2 or argv[0] not in ("fast", "stock"):
        print("usage: python -m spark_cli.bench.tui.tui_child fast|stock BASE_URL", file=sys.stderr)
        return 2

    set_escape_delay()

    base = project_root(Path.cwd())
    settings = load(base, {"provider": "mock", "model": "spark-lorem", "base_url": argv[1]})
    session = Session(None, base, settings)
    driver = FastEscDriver if argv[0] == "fast" else LinuxDriver
    app = SparkApp(TuiSetup(session=session, connect=connect), driver_class=driver)
    code = app.run()
    return code if isinstance(code, int) else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

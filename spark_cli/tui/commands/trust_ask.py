"""The TUI's start question on the approval bar, before anything connects: trust this repo's
project files (recorded, settings read again) or not this time (nothing recorded)."""

from __future__ import annotations

import os

from rich.text import Text

from spark_cli.session.config.project_view import project_lines
from spark_cli.session.config.trust import TrustState, set_trust
from spark_cli.tui.commands.approval_bar import ApprovalBar
from spark_cli.tui.output import Output


async def ask_trust(state: TrustState, bar: ApprovalBar, out: Output) -> bool:
    """Show what the project layer would set, ask, record a yes; True when trusted now."""
    why = "changed since you trusted it" if state.status == "changed" else "not trusted yet"
    out.note(f"? this repo has project files ({why}):", "bold yellow")
    if state.problem:
        out.note(f"  {state.problem}", "red")
    for line in project_lines(state, os.environ):
        out.note(f"  {line}", "yellow")
    decision = await bar.ask(Text("trust this repo's project files?  ", style="bold"),
                             Text("y trust · n not this time", style="bold"), False)
    if decision != "once":
        out.note("  → not trusted this time: the project files are ignored (spark trust "
                 "trusts them)", "yellow")
        return False
    try:
        set_trust(state, True, os.environ)
    except ValueError as exc:
        out.note(f"  → {exc}: not trusted, nothing changed", "red")
        return False
    out.note("  → trusted: a change to these files asks again", "green")
    return True

"""Best of N (`spark edit --best-of N`, the TUI's `/best`): race answers, keep the best."""

from __future__ import annotations

from spark_cli.session.race.candidate import Candidate
from spark_cli.session.race.judge import Verdicts, choose
from spark_cli.session.race.race import Race, RaceResult

__all__ = ["Candidate", "Race", "RaceResult", "Verdicts", "choose"]

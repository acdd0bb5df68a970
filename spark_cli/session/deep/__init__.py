"""The deep track: a slow, long-horizon model working in the background on a snapshot
(UI-free API for the TUI and ``spark edit --deep``, docs/providers.md)."""

from __future__ import annotations

from spark_cli.session.deep.change import ALL, ChangedFile, ChangeHunk, Selection
from spark_cli.session.deep.deep_settings import load_deep_settings
from spark_cli.session.deep.merge import HunkStatus
from spark_cli.session.deep.routing import ContextCost, suggest_deep
from spark_cli.session.deep.task import ApplyReport, DeepChange, DeepState, DeepTask
from spark_cli.session.deep.track import DeepTrack

__all__ = [
    "ALL",
    "ApplyReport",
    "ChangeHunk",
    "ChangedFile",
    "ContextCost",
    "DeepChange",
    "DeepState",
    "DeepTask",
    "DeepTrack",
    "HunkStatus",
    "Selection",
    "load_deep_settings",
    "suggest_deep",
]

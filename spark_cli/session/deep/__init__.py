"""The deep track: a slow, long-horizon model working in the background on a snapshot.

The public API (UI-free; the TUI and ``spark edit --deep`` use it; docs/providers.md):
- ``load_deep_settings(root, flags, env)`` -> ``Settings`` of the ``[deep]`` table;
- ``DeepTrack(root, settings, connect, on_change)``: ``start`` / ``tasks`` / ``cancel`` /
  ``review`` / ``apply`` / ``drop`` / ``resume`` / ``aclose``;
- ``DeepTask`` (plain state), ``DeepChange`` (``review`` / ``apply``), ``ChangedFile``,
  ``ChangeHunk``, ``HunkStatus``, ``Selection``, ``ApplyReport``;
- ``suggest_deep(instruction, context, window)``: the one-line routing tip.
"""

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

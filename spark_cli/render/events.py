"""Reading session events without depending on their exact classes: the edit outcome inside.

Session events wrap the edit engine's outcomes (``EditLanded`` carries an
``EditApplied``; ``EditRefused`` may be the edits' own type or a wrapper), so
front ends look for the outcome rather than for a particular wrapper class.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from spark_cli.edits.model.outcome import EditApplied, EditRefused

EditOutcome = EditApplied | EditRefused


def outcome_of(event: Any) -> EditOutcome | None:
    """The edit outcome ``event`` is or carries, else ``None``."""
    if isinstance(event, EditApplied | EditRefused):
        return event
    if dataclasses.is_dataclass(event) and not isinstance(event, type):
        for f in dataclasses.fields(event):
            value = getattr(event, f.name)
            if isinstance(value, EditApplied | EditRefused):
                return value
    return None

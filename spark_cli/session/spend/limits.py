"""The limits a harness sets on one run: model requests (``--max-turns``) and a wall-clock
deadline (``--timeout``), whose time left each request's instructions state."""

from __future__ import annotations

import time
from dataclasses import replace

from spark_cli.protocol.channel import TurnRequest
from spark_cli.record import record

TIME_HEAD = "\n\n# Time budget\n"
TIME_NOTE = (TIME_HEAD + "This run ends in {left:.0f} s (wall clock), whatever state the work "
             "is in: edits that landed are kept. Make the essential edits first.\n")


@record
class Limits:
    """``max_requests`` in a turn's tool loop; ``deadline``: when the run stops (monotonic)."""

    max_requests: int | None = None
    deadline: float | None = None

    def timed(self, request: TurnRequest) -> TurnRequest:
        """``request`` with the time left now in its instructions (replacing an older note)."""
        if self.deadline is None:
            return request
        base = request.instructions.split(TIME_HEAD, 1)[0]
        left = max(0.0, self.deadline - time.monotonic())
        return replace(request, instructions=base + TIME_NOTE.format(left=left))


NO_LIMITS = Limits()

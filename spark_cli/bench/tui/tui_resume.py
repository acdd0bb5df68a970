"""`spark bench tui`, resume phase: how long a resumed conversation of ``turns`` turns takes
to reach the transcript and the first frame (no channel opened)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from spark_cli.protocol.channel import Message
from spark_cli.session.config.settings import load_settings
from spark_cli.session.config.state_dir import STATE_ENV
from spark_cli.session.conversation import Session
from spark_cli.session.workspace.store import SessionStore, ShownItem
from spark_cli.tui.app import SparkApp
from spark_cli.tui.setup import TuiSetup
from spark_cli.tui.transcript.transcript import Transcript

DIFF = ("--- a/src/shop/cart.py\n+++ b/src/shop/cart.py\n@@ -3,4 +3,4 @@\n"
        "-def total_price(cart):\n+def cart_total(cart):\n     cents = 0\n")


@contextlib.asynccontextmanager
async def _offline(settings: Any) -> AsyncIterator[Any]:
    raise OSError("the resume phase opens no channel")
    yield  # pragma: no cover


def _save(workdir: Path, turns: int) -> None:
    shown: list[ShownItem] = []
    history: list[Message] = []
    for n in range(1, turns + 1):
        shown += [ShownItem("prompt", f"rename total_price to cart_total ({n})", "sent"),
                  ShownItem("answer", f"Renaming `total_price` (turn {n}):\n- the cart\n"
                                      "- its tests\n\nDone."),
                  ShownItem("edit", "src/shop/cart.py: applied 1 hunk(s)", DIFF),
                  ShownItem("summary", "TTFT 42 ms · 1,497 tok/s · 181 tokens · 1 applied, "
                                       "0 refused · 0.21 s")]
        history += [Message("user", f"rename total_price to cart_total ({n})"),
                    Message("assistant", f"Renaming (turn {n}) ...")]
    SessionStore(workdir).save_conversation(history, provider="mock", model="spark-rules",
                                            shown=shown)


async def resume(workdir: Path, turns: int) -> dict[str, Any]:
    """Seconds from making the app to its resumed transcript (held, then on screen)."""
    before = os.environ.get(STATE_ENV)
    os.environ[STATE_ENV] = str(workdir / ".bench-state")
    try:
        _save(workdir, turns)
        settings = load_settings(workdir, {"provider": "mock", "model": "spark-rules"},
                                 {"SPARK_CONFIG_DIR": str(workdir / ".no-user-config")})

        started = time.perf_counter()
        app = SparkApp(TuiSetup(session=Session(None, workdir, settings), connect=_offline,
                                store=SessionStore(workdir), resume=True))
        async with app.run_test(size=(120, 30)) as pilot:
            transcript = app.query_one(Transcript)
            while "resumed the conversation" not in transcript.plain_text():
                await asyncio.sleep(0.002)
            held = time.perf_counter() - started
            await pilot.pause()
            shown = time.perf_counter() - started
            lines = transcript.line_count
    finally:
        if before is None:
            os.environ.pop(STATE_ENV, None)
        else:
            os.environ[STATE_ENV] = before
    return {"turns": turns, "held_s": held, "shown_s": shown, "lines": lines}

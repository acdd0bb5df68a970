"""`spark bench tui`, headless half: the real SparkApp against an engine process, its frames
stamped (:class:`.tui_frames.RecordingDriver`), keys posted as the driver posts them; phases
:func:`keep_up`, :func:`cpu`, :func:`typing_and_esc` (``tui_report`` renders their dicts)."""

from __future__ import annotations

import asyncio
import dataclasses
import gc
import random
import shutil
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from textual import events

from spark_cli.bench.processes import rss_bytes
from spark_cli.bench.tui.tui_frames import FrameLog, RecordingDriver
from spark_cli.cli.tui_cmd import connect
from spark_cli.session.config.settings import load_settings
from spark_cli.session.conversation import Session
from spark_cli.tui.app import SparkApp
from spark_cli.tui.setup import TuiSetup

SIZE = (120, 30)
PROMPT_MARKS = "αβγδεζηθικλμνξοπρστυφχψω"
"""Typed in the keystroke probes: letters nothing else on screen contains."""
Figures = dict[str, Any]


DEEP_TASK = "add docstrings to every function in src/shop/cart.py and src/shop/pricing.py"
"""What the deep model works on while keys are timed (the example repo's files)."""


def make_files(root: Path, count: int) -> None:
    """``count`` small files under ``root/src/many/`` (100 folders), for the picker."""
    for i in range(count):
        folder = root / "src" / "many" / f"pkg{i % 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"module_{i:05d}.py").write_text("x = 1\n")


async def run_app(url: str | None, token: str, workdir: Path,
                  body: Callable[[Any, FrameLog], Awaitable[Figures]],
                  model: str = "spark-lorem", *, chat: bool = False) -> Figures:
    """``body(app, log)`` inside SparkApp on ``url`` (None: bundled), Chat SSE when ``chat``."""
    env = {"SPARK_API_KEY": token, "SPARK_CONFIG_DIR": str(workdir / ".no-user-config")}
    flags = {"provider": "mock", "model": model}
    if chat:
        flags = {"provider": "openai-compatible", "model": "lorem"}
    if url is not None:
        flags["base_url"] = url + "/v1"
    settings = load_settings(workdir, flags, env)
    deep = load_settings(workdir, {**flags, "model": "spark-deep"}, env)  # the same engine
    session = Session(None, workdir, settings)
    log = FrameLog()
    RecordingDriver.log = log
    app = SparkApp(TuiSetup(session=session, connect=connect, deep_settings=deep),
                   driver_class=RecordingDriver)
    log.shown = lambda: app.feed.painter.stream.taken if app.feed.painter is not None else 0
    result: Figures = {}
    failure: list[BaseException] = []

    async def pilot(_pilot: object) -> None:
        try:
            await until(lambda: app.feed.state.state == "ready", 20.0, "the app to connect")
            result.update(await body(app, log))
        except BaseException as exc:  # shown by the caller, after the app closed
            failure.append(exc)
        finally:
            app.exit(0)

    await app.run_async(headless=False, size=SIZE, auto_pilot=pilot)
    if failure:
        raise failure[0]
    return result


async def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.005)


async def start_turn(app: Any, tokens: int) -> None:
    """Start a turn of ``tokens`` lorem tokens (returns once it runs)."""
    app.session.configure(dataclasses.replace(app.session.settings, max_output_tokens=tokens))
    before = app.session.marks
    app.interaction.submit("stream lorem")
    await until(lambda: app.interaction.busy, 5.0, "the turn to start")
    await until(lambda: app.session.marks is not before or not app.interaction.busy, 10.0,
                 "the request to go out")


def _still_running(app: Any) -> None:
    if not app.interaction.busy:
        tail = app.query_one("#transcript").plain_text().splitlines()[-3:]
        raise RuntimeError("the turn ended early: " + " / ".join(tail))


async def _finish(app: Any, timeout: float) -> None:
    await asyncio.wait_for(app.interaction.wait(), timeout)


async def _warm_up(app: Any) -> None:
    """One short turn first: what the first answer imports and builds once is not measured."""
    await start_turn(app, 300)
    await _finish(app, 30.0)


async def _streaming(app: Any) -> None:
    await until(lambda: app.session.marks.first_delta_at is not None or
                 not app.interaction.busy, 10.0, "the first token")
    _still_running(app)


async def type_probe(app: Any, log: FrameLog, samples: int, gap_s: float,
                     still: Callable[[], bool] = lambda: True) -> tuple[list[float], int]:
    """Keystroke → first frame showing it, ``samples`` times while ``still()``; (seconds, lost)."""
    rng = random.Random(7)
    latencies: list[float] = []
    lost = 0
    for index in range(samples):
        if not still():
            break
        await asyncio.sleep(gap_s * rng.uniform(0.5, 1.5))
        letter = PROMPT_MARKS[index % len(PROMPT_MARKS)]
        shown = log.expect(letter)
        typed = time.perf_counter()
        app.post_message(events.Key(letter, letter))
        try:
            latencies.append(await asyncio.wait_for(shown, 1.0) - typed)
        except TimeoutError:
            lost += 1
        app.post_message(events.Key("backspace", None))
    await asyncio.sleep(0.05)
    return latencies, lost


def _rate(marks: Any, tokens: int) -> float:
    span = (marks.last_delta_at or 0) - (marks.first_delta_at or 0)
    return tokens / span if span > 0 else float("nan")


async def keep_up(url: str, token: str, workdir: Path, *, tokens: int, tps: float) -> Figures:
    """Stream end → last token on screen for one ``tokens`` answer at ``tps``."""

    async def body(app: Any, log: FrameLog) -> Figures:
        await _warm_up(app)
        await start_turn(app, tokens)
        await _finish(app, 30 + 3 * tokens / tps)
        marks, total = app.session.marks, app.feed.painter.stream.taken
        await asyncio.sleep(0.1)
        shown_at = log.first_showing(total)
        if shown_at is None or marks.last_delta_at is None or marks.request_sent_at is None:
            raise RuntimeError("the answer never reached the screen whole")
        scheduled_end = marks.request_sent_at + (tokens - 1) / tps
        return {"tokens": tokens, "tps": tps, "chars": total,
                "received_tps": _rate(marks, tokens),
                "last_delta_to_screen_s": shown_at - marks.last_delta_at,
                "scheduled_end_to_screen_s": shown_at - scheduled_end,
                "frames": len(log.frames)}

    return await run_app(url, token, workdir, body)


async def cpu(url: str, token: str, workdir: Path, *, tokens: int, tps: float) -> Figures:
    """Process CPU / wall while one ``tokens`` answer streams at ``tps`` (plus idle, for scale)."""

    async def body(app: Any, log: FrameLog) -> Figures:
        await _warm_up(app)
        idle_cpu, idle_wall = time.process_time(), time.perf_counter()
        await asyncio.sleep(1.0)
        idle = (time.process_time() - idle_cpu) / (time.perf_counter() - idle_wall)
        await start_turn(app, tokens)
        await _streaming(app)
        start_cpu, start_wall, frames = time.process_time(), time.perf_counter(), len(log.frames)
        await _finish(app, 30 + 3 * tokens / tps)
        wall = time.perf_counter() - start_wall
        share = (time.process_time() - start_cpu) / wall
        return {"tokens": tokens, "tps": tps, "cpu_share": share, "idle_cpu_share": idle,
                "received_tps": _rate(app.session.marks, tokens),
                "frames_per_s": (len(log.frames) - frames) / wall}

    return await run_app(url, token, workdir, body)


async def _esc_once(app: Any, log: FrameLog, stream_s: float) -> tuple[float, int, float]:
    """(Esc → last frame with new answer text, chars shown after it, Esc → turn ended)."""
    await start_turn(app, 5_000)
    await _streaming(app)
    await asyncio.sleep(stream_s * random.uniform(0.8, 1.2))
    _still_running(app)
    pressed = time.perf_counter()
    app.post_message(events.Key("escape", "\x1b"))
    await until(lambda: app.feed.painter.muted, 2.0, "Esc to reach the painter")
    final = app.feed.painter.stream.taken
    await _finish(app, 10.0)
    ended = time.perf_counter()
    await asyncio.sleep(0.1)
    before = [shown for stamp, shown in log.frames if stamp < pressed]
    after = [(stamp, shown) for stamp, shown in log.frames if stamp >= pressed]
    extra = max((shown for _, shown in after), default=final) - final
    if before and before[-1] >= final:  # the screen already showed all it ever will
        return 0.0, extra, ended - pressed
    settled = next((stamp for stamp, shown in after if shown >= final), None)
    if settled is None:
        raise RuntimeError("the text that arrived before Esc never reached the screen")
    return settled - pressed, extra, ended - pressed


async def typing_and_esc(url: str, token: str, workdir: Path, *, tps: float, stream_s: float,
                         samples: int, turns: int, turn_tokens: int, escs: int,
                         picker_files: int = 20_000) -> Figures:
    """Keystrokes while streaming (fresh, late, deep, compact, picker), Esc, memory."""

    async def typed_while_streaming(app: Any, log: FrameLog) -> tuple[list[float], int]:
        await start_turn(app, int(tps * stream_s) + 1)
        await _streaming(app)
        result = await type_probe(app, log, samples, 0.06, still=lambda: app.interaction.busy)
        await _finish(app, 30 + 3 * stream_s)
        return result

    async def typed_beside_a_deep_task(app: Any, log: FrameLog) -> tuple[list[float], int]:
        """The same while a deep task streams too (cancelled after)."""
        task = app.deep.track.start(DEEP_TASK)
        await until(lambda: task.output_tokens > 0 or not task.active, 30.0,
                     "the deep task's first tokens")
        await start_turn(app, int(tps * stream_s) + 1)
        await _streaming(app)
        result = await type_probe(app, log, samples, 0.06,
                                  still=lambda: app.interaction.busy and task.active)
        await app.deep.track.cancel(task.number)
        await _finish(app, 30 + 3 * stream_s)
        return result

    async def typed_with_the_picker_open(app: Any, log: FrameLog) -> tuple[list[float], int]:
        """The same with the ``@`` file picker open over ``picker_files`` files."""
        await asyncio.to_thread(make_files, workdir, picker_files)
        prompt = app.query_one("#prompt")
        prompt.load_text("@src/")
        prompt.move_cursor(prompt.document.end)
        await until(lambda: app.assist.paths.matcher() is not None and
                     len(app.assist.paths.matcher()) >= picker_files, 60.0, "the repo's files")
        app.assist.update()
        await until(lambda: bool(app.assist.completer.choices), 5.0, "the picker to open")
        result = await typed_while_streaming(app, log)
        prompt.clear()
        await asyncio.to_thread(shutil.rmtree, workdir / "src" / "many")  # later phases' turns
        return result

    async def typed_while_compacting(app: Any, log: FrameLog) -> tuple[list[float], int]:
        """The same while ``/compact`` streams its summary (then Esc cancels it)."""
        assert app.interaction.compact(""), "a turn was still running"
        result = await type_probe(app, log, samples, 0.06, still=lambda: app.interaction.busy)
        await app.interaction.interrupt()
        await _finish(app, 30.0)
        return result

    async def body(app: Any, log: FrameLog) -> Figures:
        await _warm_up(app)
        fresh, fresh_lost = await typed_while_streaming(app, log)
        deep, deep_lost = await typed_beside_a_deep_task(app, log)
        esc = [await _esc_once(app, log, 0.4) for _ in range(escs)]
        memory: dict[int, tuple[int, int]] = {}
        done = 2 + escs
        while done < turns:
            await start_turn(app, turn_tokens)
            await _finish(app, 30 + 3 * turn_tokens / tps)
            done += 1
            if (done >= 10 and not memory) or done == turns:
                gc.collect()
                memory[done] = (rss_bytes(), sys.getallocatedblocks())
        late, late_lost = await typed_while_streaming(app, log)
        compact, compact_lost = await typed_while_compacting(app, log)
        picker, picker_lost = await typed_with_the_picker_open(app, log)
        figures: Figures = {
            "tps": tps, "turns": done, "turn_tokens": turn_tokens,
            "transcript_lines": app.query_one("#transcript").line_count,
            "key_fresh_ms": [x * 1000 for x in fresh], "key_fresh_lost": fresh_lost,
            "key_late_ms": [x * 1000 for x in late], "key_late_lost": late_lost,
            "key_deep_ms": [x * 1000 for x in deep], "key_deep_lost": deep_lost,
            "key_compact_ms": [x * 1000 for x in compact], "key_compact_lost": compact_lost,
            "key_picker_ms": [x * 1000 for x in picker], "key_picker_lost": picker_lost,
            "picker_files": picker_files,
            "esc_to_final_frame_ms": [e[0] * 1000 for e in esc],
            "esc_chars_after": max(e[1] for e in esc) if esc else 0,
            "esc_to_turn_end_ms": [e[2] * 1000 for e in esc],
        }
        if len(memory) == 2:  # after 10 turns (or the first turn past 10) and after all
            early, late_memory = (memory[turn] for turn in sorted(memory))
            figures["rss_10"], figures["blocks_10"] = early
            figures["rss_late"], figures["blocks_late"] = late_memory
        return figures

    return await run_app(url, token, workdir, body)

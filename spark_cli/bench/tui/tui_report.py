"""`spark bench tui`'s figures as a table against the targets (pure: figures in, Markdown out)."""

from __future__ import annotations

import statistics
from typing import Any

from spark_cli.bench.figures import median_p95, met

SECTION = "## TUI"
TARGETS = {"keep_ms": 50.0, "key_p95_ms": 16.0, "cpu_share": 0.30, "esc_ms": 16.0,
           "launch_s": 0.5, "memory_ratio": 1.5}
PTY_ROWS = {"fast": "Esc byte → turn stopped on screen, fast-Esc driver",
            "stock": "the same with Textual's stock LinuxDriver",
            "ctrl_c": "Ctrl+C (no escape wait) → turn stopped on screen"}


def rows(figures: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    """(what, measured, target, verdict) for every figure of the phases that ran."""
    out: list[tuple[str, str, str, str]] = []
    if "keep" in figures:
        out += _keep_rows(figures["keep"])
    if "typing" in figures:
        out += _key_rows(figures["typing"])
    if "cpu" in figures:
        cpu = figures["cpu"]
        out.append(("CPU while rendering 1,000 tok/s (process CPU / wall)",
                    f"{cpu['cpu_share']:.0%} of a core ({cpu['frames_per_s']:.0f} frames/s; "
                    f"idle {cpu['idle_cpu_share']:.1%})", "≤ 30%",
                    met(cpu["cpu_share"] <= TARGETS["cpu_share"])))
    if "typing" in figures:
        out += _esc_rows(figures["typing"])
    if "pty_esc" in figures:
        out += [(f"pty: {what} (median)",
                 f"{statistics.median(figures['pty_esc'][key]) * 1000:.0f} ms", "", "")
                for key, what in PTY_ROWS.items()]
    if "launch" in figures:
        out += _launch_rows(figures["launch"])
    if "resume" in figures:
        resume = figures["resume"]
        out.append((f"`spark --resume` of a {resume['turns']}-turn conversation: app made → "
                    "transcript shown (held)",
                    f"{resume['shown_s']:.2f} s ({resume['held_s']:.2f} s; "
                    f"{resume['lines']:,} lines, the last 30 turns)", "≤ 0.5 s",
                    met(resume["shown_s"] <= TARGETS["launch_s"])))
    if "typing" in figures and "rss_10" in figures["typing"]:
        out.append(_memory_row(figures["typing"]))
    return out


def _keep_rows(keep: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    keep_ms = keep["last_delta_to_screen_s"] * 1000
    return [
        ("10,000 tok/s: last token received → on screen (median)", f"{keep_ms:.1f} ms",
         "≤ 50 ms", met(keep_ms <= TARGETS["keep_ms"])),
        ("10,000 tok/s: engine's scheduled end → on screen (median)",
         f"{keep['scheduled_end_to_screen_s'] * 1000:.1f} ms "
         f"(received {keep['received_tps']:,.0f} tok/s)", "", ""),
    ]


def _key_rows(typing: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    fresh, late = median_p95(typing["key_fresh_ms"]), median_p95(typing["key_late_ms"])
    deep, picker = median_p95(typing["key_deep_ms"]), median_p95(typing["key_picker_ms"])
    compact = median_p95(typing["key_compact_ms"])
    return [
        ("keystroke → screen while streaming 2,000 tok/s (median / p95)",
         f"{fresh[0]:.1f} / {fresh[1]:.1f} ms, {typing['key_fresh_lost']} lost", "p95 ≤ 16 ms",
         met(fresh[1] <= TARGETS["key_p95_ms"])),
        (f"the same after {typing['turns']} turns ({typing['transcript_lines']:,} transcript "
         "lines)",
         f"{late[0]:.1f} / {late[1]:.1f} ms, {typing['key_late_lost']} lost "
         f"(p95 × {late[1] / fresh[1]:.2f} of fresh)", "p95 ≤ 16 ms, flat",
         met(late[1] <= TARGETS["key_p95_ms"])),
        ("the same while a deep task streams too (the dual track)",
         f"{deep[0]:.1f} / {deep[1]:.1f} ms, {typing['key_deep_lost']} lost "
         f"(p95 × {deep[1] / fresh[1]:.2f} of without)", "unchanged within noise", ""),
        ("the same while /compact streams its summary",
         f"{compact[0]:.1f} / {compact[1]:.1f} ms, {typing['key_compact_lost']} lost",
         "p95 ≤ 16 ms", met(compact[1] <= TARGETS["key_p95_ms"])),
        (f"the same with the @ file picker open over {typing['picker_files']:,} files",
         f"{picker[0]:.1f} / {picker[1]:.1f} ms, {typing['key_picker_lost']} lost",
         "p95 ≤ 16 ms", met(picker[1] <= TARGETS["key_p95_ms"])),
    ]


def _esc_rows(typing: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    esc = median_p95(typing["esc_to_final_frame_ms"])
    esc_end = median_p95(typing["esc_to_turn_end_ms"])
    return [
        ("Esc (in the app) → last frame with answer text (median / p95)",
         f"{esc[0]:.1f} / {esc[1]:.1f} ms; text after the key shown: "
         f"{typing['esc_chars_after']} chars", "≤ 16 ms", met(esc[1] <= TARGETS["esc_ms"])),
        ("Esc (in the app) → turn ended, engine stopped (median / p95)",
         f"{esc_end[0]:.1f} / {esc_end[1]:.1f} ms", "", ""),
    ]


def _launch_rows(launch: dict[str, Any]) -> list[tuple[str, str, str, str]]:
    return [
        ("pty: `spark` launch → first frame, prompt taking keys (median)",
         f"{launch['first_frame_s']:.2f} s (of {launch['reps']}; "
         f"{launch['first_frame_cpu_s']:.2f} s of CPU)", "≤ 0.5 s",
         met(launch["first_frame_s"] <= TARGETS["launch_s"])),
        ("pty: `spark` launch → connected (HUD ready, median)",
         f"{launch['connected_s']:.2f} s", "", ""),
        ("pty: keys typed right after spawn that reached the prompt",
         f"{launch['type_ahead_kept']} of {launch['reps']} launches", "all",
         met(launch["type_ahead_kept"] == launch["reps"])),
    ]


def _memory_row(typing: dict[str, Any]) -> tuple[str, str, str, str]:
    rss = typing["rss_late"] / typing["rss_10"]
    heap = typing["blocks_late"] / typing["blocks_10"]
    return (f"memory after {typing['turns']} turns vs after 10: RSS (Python heap blocks)",
            f"× {rss:.2f} ({typing['rss_10'] / 2**20:.0f} → "
            f"{typing['rss_late'] / 2**20:.0f} MiB; blocks × {heap:.2f})", "≤ × 1.5",
            met(max(rss, heap) <= TARGETS["memory_ratio"]))


def table(figures: dict[str, Any]) -> str:
    lines = ["| figure | measured | target | |", "|---|---|---|---|"]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows(figures)]
    imports = ", ".join(f"{name} {ms:.0f}" for name, ms in figures.get("imports", []))
    if imports:
        lines += ["", f"Import time before the first frame (ms, each module's own, `-X importtime`"
                      f", so inflated): {imports}."]
    return "\n".join(lines)

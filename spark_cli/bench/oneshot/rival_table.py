"""The side-by-side table of `spark bench oneshot --codex`: spark and Codex CLI per channel,
each cell ``median / min``, spark's launch → request over Codex's, and what a reader needs
to trust the rows (Codex's warm-up request, requests per run, answer lengths, exit codes).
"""

from __future__ import annotations

from typing import Any

from spark_cli.bench.figures import CHANNEL_NAMES, met

TARGET_RATIO = 0.8
_NO_WIRE = "no such wire (Codex takes `wire_api = \"responses\"` only)"


def _seconds(pair: tuple[float, float] | None) -> str:
    return "—" if pair is None else f"{pair[0]:.3f} / {pair[1]:.3f} s"


def _mb(pair: tuple[float, float]) -> str:
    return f"{pair[0]:.0f} / {pair[1]:.0f} MB"


def side_table(side: dict[str, Any], tokens: int) -> str:
    """The table and its notes, from ``side`` (``SideBySide.figures()``)."""
    rows: dict[str, Any] = side["rows"]
    name = display_names(side["version"])
    reps = max((r["reps"] for r in rows.values()), default=0)
    lines = [
        f"Side by side, one engine, both clients through the recording relay "
        f"(median / min of {reps}):",
        "",
        "| client, channel | launch → request (at the relay) | spark's own stamp "
        f"| CPU, whole process, {tokens:,}-token answer | CPU, the client's process alone "
        "| peak RSS |",
        "|---|---|---|---|---|---|",
    ]
    for channel, label in CHANNEL_NAMES.items():
        for client in ("spark", "codex"):
            row = rows.get(f"{client}/{channel}")
            if row is None:
                if client == "codex":
                    lines.append(f"| {name[client]}, {label} | {_NO_WIRE} | | | | |")
                continue
            lines.append(f"| {name[client]}, {label} | {_seconds(row['launch_to_request_s'])} "
                         f"| {_seconds(row['own_stamp_s'])} | {_seconds(row['cpu_s'])} "
                         f"| {_seconds(row['own_cpu_s'])} | {_mb(row['peak_rss_mb'])} |")
    return "\n".join([*lines, "", *_ratio(rows, name), *_notes(rows, name)])


def _ratio(rows: dict[str, Any], name: dict[str, str]) -> list[str]:
    """spark's launch → request over Codex's, per channel both have (medians)."""
    both = [(label, rows[f"spark/{c}"]["launch_to_request_s"][0]
             / rows[f"codex/{c}"]["launch_to_request_s"][0])
            for c, label in CHANNEL_NAMES.items() if f"spark/{c}" in rows and f"codex/{c}" in rows]
    if not both:
        return []
    cells = ", ".join(f"{label} {ratio:.2f}×" for label, ratio in both)
    verdict = met(all(ratio <= TARGET_RATIO for _, ratio in both))
    return [f"spark's launch → request over {name['codex']}'s (medians): {cells} (target "
            f"≤ {TARGET_RATIO:g}×: {verdict})", ""]


def display_names(version: str) -> dict[str, str]:
    """``{"spark": "spark", "codex": "Codex CLI 0.171.0"}`` from ``codex --version``."""
    return {"spark": "spark", "codex": version.replace("codex-cli", "Codex CLI")
            if version.startswith("codex-cli") else f"Codex CLI ({version})"}


def _notes(rows: dict[str, Any], name: dict[str, str]) -> list[str]:
    notes: list[str] = []
    for key, row in rows.items():
        first, answer = row["first_request_s"], row["launch_to_request_s"]
        if first[0] < answer[0]:
            client, channel = key.split("/")
            notes.append(f"- {name[client]} on {CHANNEL_NAMES[channel]} sends a request asking "
                         f"for no answer (`generate: false`) first, at {_seconds(first)}; the "
                         "row counts the one that asks for the answer.")
    counts = sorted({n for row in rows.values() for n in row["answer_requests"]})
    notes.append("- requests asking for an answer, per run: " + (
        "one in every run" if counts == [1] else
        "; ".join(f"{key} {row['answer_requests']}" for key, row in rows.items()))
        + "; every answer was the full length as the engine counted it (read at the relay).")
    codes = {client: sorted({c for key, row in rows.items() if key.startswith(client + "/")
                             for c in row["exit_codes"]}) for client in name}
    notes.append("- exit codes: " + ", ".join(
        f"{name[client]} {' '.join(map(str, found))}" for client, found in codes.items()
        if found) + (" (Codex reports the capped answer, which ends `incomplete`, as an "
                     "error once it has read it)" if codes.get("codex", [0]) != [0] else ""))
    if any(key.startswith("codex/") for key in rows):
        notes.append(f"- {name['codex']} ran `codex exec --skip-git-repo-check -s read-only` "
                     "with its own default model, stdin from /dev/null and "
                     "`shell_snapshot = false` (its start-up "
                     "snapshot of the user's login shell costs what that shell's profile "
                     "costs); CPU \"alone\" leaves out the processes it waited for "
                     "(`git ls-remote` for plugins, `lsb_release`).")
    return notes

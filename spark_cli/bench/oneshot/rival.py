"""Codex CLI side by side with spark, for `spark bench oneshot --codex PATH`: ``codex exec``
(its own ``CODEX_HOME`` per channel) and `spark edit --json` take turns on one engine through
one recording relay (:mod:`.request_relay`): launch → request, CPU, peak RSS."""

from __future__ import annotations

import statistics
import subprocess
from pathlib import Path
from typing import Any

from spark_cli.bench.figures import CHANNEL_NAMES, met
from spark_cli.bench.oneshot.child import run_once
from spark_cli.bench.oneshot.request_relay import Recording, RequestRelay
from spark_cli.bench.processes import child_env, run_piped
from spark_cli.record import record

RIVAL_CHANNELS = ("responses_ws", "responses_sse")  # Codex: `wire_api = "responses"` only
SIDE_CHANNELS = ("responses_ws", "responses_sse", "chat_sse")
PROMPT = "stream lorem"
RUN_TIMEOUT_S = 120.0
TARGET_RATIO = 0.8
# a user's Codex settings, which must not reach the bench's runs
_DROPPED = ("CODEX_HOME", "CODEX_API_KEY", "OPENAI_BASE_URL", "RUST_LOG", "SPARK_KEY")


def codex_version(codex: str) -> str:
    """``codex --version``'s line (``codex-cli 0.171.0``), or ``codex`` when it says nothing."""
    try:
        done = subprocess.run([codex, "--version"], capture_output=True, text=True,
                              timeout=30, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return "codex"
    return done.stdout.strip().splitlines()[0] if done.stdout.strip() else "codex"


def codex_config(base_url: str, channel: str) -> str:
    """``config.toml``: the engine at ``base_url`` as a Responses provider over ``channel``, no
    ``model`` (Codex asks for its default); no shell snapshot (it costs the user's profile)."""
    if channel not in RIVAL_CHANNELS:
        raise ValueError(f"Codex has no {channel} channel (wire_api = \"responses\" only)")
    ws = channel == "responses_ws"
    features = "responses_websockets = true\nresponses_websockets_v2 = true\n" if ws else ""
    return ('model_provider = "spark"\n\n[features]\nshell_snapshot = false\n'
            + features + '\n[model_providers.spark]\nname = "spark engine"\n'
            f'base_url = "{base_url}"\nenv_key = "SPARK_KEY"\nwire_api = "responses"\n'
            + ("supports_websockets = true\n" if ws else ""))


def codex_argv(codex: str, prompt: str = PROMPT) -> list[str]:
    """One non-interactive turn, outside a git repository, no writes."""
    return [codex, "exec", "--skip-git-repo-check", "-s", "read-only", prompt]


def codex_env(home: Path, token: str) -> dict[str, str]:
    """A user's environment with the bench's ``CODEX_HOME`` and key, nothing of theirs."""
    env = {k: v for k, v in child_env().items() if k not in _DROPPED}
    return {**env, "CODEX_HOME": str(home), "SPARK_KEY": token}


@record
class SideRun:
    """One run of a client through the relay: launch → the first request asking for an answer
    and → the first of any kind (a warm-up), spark's own stamp (None for Codex), CPU with the
    processes it waited for and alone, peak RSS (KiB), answer tokens and requests, exit code."""

    launch_to_request_s: float
    first_request_s: float
    own_stamp_s: float | None
    cpu_s: float
    own_cpu_s: float
    peak_rss_kb: int
    output_tokens: int
    answer_requests: int
    exit_code: int


def _side_run(recording: Recording, started: float, tokens: int, what: str,
              detail: str) -> tuple[float, float]:
    """(launch → answer request, → first request); RuntimeError without a full answer."""
    first = recording.first_answer_at
    if first is None or recording.output_tokens != tokens:
        raise RuntimeError(f"{what}: the relay saw {len(recording.answers)} answer request(s) "
                           f"and {recording.output_tokens} output tokens, not {tokens}"
                           + (f": {detail}" if detail else ""))
    return first - started, recording.arrivals[0].at - started


def run_codex(codex: str, channel: str, relay: RequestRelay, token: str, tokens: int,
              workdir: Path) -> SideRun:
    """One ``codex exec`` on ``channel`` through ``relay``; its figures."""
    home = workdir / f"codex-home-{channel}"
    home.mkdir(parents=True, exist_ok=True)
    config = home / "config.toml"
    if not config.exists():
        config.write_text(codex_config(relay.url + "/v1", channel))
    relay.take()  # nothing stale
    run = run_piped(codex_argv(codex), workdir, codex_env(home, token), RUN_TIMEOUT_S)
    usage = run.usage
    recording = relay.take()
    detail = f"exit {usage.exit_code}: {run.err.strip()[-400:]}"
    launch, first = _side_run(recording, run.started, tokens, f"codex exec on {channel}", detail)
    return SideRun(launch, first, None, usage.cpu_s, usage.own_cpu_s, usage.peak_rss_kb,
                   recording.output_tokens or 0, len(recording.answers), usage.exit_code)


def run_spark(relay: RequestRelay, token: str, tokens: int, workdir: Path,
              channel: str) -> SideRun:
    """One `spark edit --json` on ``channel`` through ``relay`` (as in the main table)."""
    relay.take()
    rep = run_once(relay.url, token, tokens, workdir, channel)
    recording = relay.take()
    launch, first = _side_run(recording, rep.started, tokens, f"spark edit on {channel}",
                              f"exit {rep.exit_code}")
    return SideRun(launch, first, rep.launch_to_request_s, rep.cpu_raw_s, rep.own_cpu_s,
                   rep.peak_rss_kb, recording.output_tokens or 0, len(recording.answers),
                   rep.exit_code)


class SideBySide:
    """The side-by-side runs of one benchmark, repetition by repetition."""

    def __init__(self, codex: str, engine_host: str, engine_port: int, token: str,
                 tokens: int, workdir: Path) -> None:
        self.codex = codex
        self.version = codex_version(codex)
        self.relay = RequestRelay(engine_host, engine_port)
        self.token = token
        self.tokens = tokens
        self.workdir = workdir
        self.runs: dict[tuple[str, str], list[SideRun]] = {}

    def rep(self, index: int, *, counted: bool = True) -> None:
        """One run per client and channel, who goes first alternating (or a warm-up)."""
        for channel in SIDE_CHANNELS:
            clients = ["spark", "codex"] if channel in RIVAL_CHANNELS else ["spark"]
            for client in clients if index % 2 == 0 else clients[::-1]:
                run = (run_codex(self.codex, channel, self.relay, self.token, self.tokens,
                                 self.workdir) if client == "codex" else
                       run_spark(self.relay, self.token, self.tokens, self.workdir, channel))
                if counted:
                    self.runs.setdefault((client, channel), []).append(run)

    def close(self) -> None:
        self.relay.close()

    def figures(self) -> dict[str, Any]:
        rows = {f"{client}/{channel}": side_figures(runs)
                for (client, channel), runs in self.runs.items()}
        return {"codex": self.codex, "version": self.version, "rows": rows}


def side_figures(runs: list[SideRun]) -> dict[str, Any]:
    """Median and minimum of each figure over one client's runs on one channel."""
    def pair(values: list[float]) -> tuple[float, float]:
        return statistics.median(values), min(values)

    own = [r.own_stamp_s for r in runs if r.own_stamp_s is not None]
    return {
        "launch_to_request_s": pair([r.launch_to_request_s for r in runs]),
        "first_request_s": pair([r.first_request_s for r in runs]),
        "own_stamp_s": pair(own) if own else None,
        "cpu_s": pair([r.cpu_s for r in runs]),
        "own_cpu_s": pair([r.own_cpu_s for r in runs]),
        "peak_rss_mb": pair([r.peak_rss_kb / 1024 for r in runs]),
        "output_tokens": statistics.median(r.output_tokens for r in runs),
        "answer_requests": sorted({r.answer_requests for r in runs}),
        "exit_codes": sorted({r.exit_code for r in runs}),
        "reps": len(runs),
    }


_NO_WIRE = "no such wire (Codex takes `wire_api = \"responses\"` only)"


def _seconds(pair: tuple[float, float] | None) -> str:
    return "—" if pair is None else f"{pair[0]:.3f} / {pair[1]:.3f} s"


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
            rss = row["peak_rss_mb"]
            lines.append(f"| {name[client]}, {label} | {_seconds(row['launch_to_request_s'])} "
                         f"| {_seconds(row['own_stamp_s'])} | {_seconds(row['cpu_s'])} "
                         f"| {_seconds(row['own_cpu_s'])} | {rss[0]:.0f} / {rss[1]:.0f} MB |")
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
    return notes

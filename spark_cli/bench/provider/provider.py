"""`spark bench provider`: how a provider's prefill grows with the prompt, and its first
token: per size, ``reps`` different prompts, each on a fresh connection on each of the
provider's channels."""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import time
from contextlib import ExitStack
from pathlib import Path

import typer

from spark_cli.bench.figures import CHANNEL_NAMES, report
from spark_cli.bench.processes import start_engine
from spark_cli.bench.provider.prompts import parse_size, prompt, size_label
from spark_cli.protocol.channel import (
    ChannelError,
    Message,
    RequestSent,
    ResponseStarted,
    TextDelta,
    TurnRequest,
    UsageReported,
)
from spark_cli.protocol.secrets import Secrets
from spark_cli.protocol.tokens import count_tokens
from spark_cli.record import record
from spark_cli.session.config.layers import SettingsError
from spark_cli.session.config.settings import ProviderSettings, load_settings
from spark_cli.transport.factory import ChannelKind, open_channel

DEFAULT_SIZES = "1k,4k,16k"
SECTION = "## Provider"


def channels_for(provider: ProviderSettings) -> list[ChannelKind]:
    """The channels to measure: the provider's own, plus HTTP SSE beside a WebSocket."""
    kind = provider.kind
    if kind == "mock" or kind == "responses_ws":
        return ["responses_ws", "responses_sse"]
    return [kind]


@record
class ProviderAnswer:
    """One answer on a fresh channel (seconds; NaN where a mark never came): opening it to
    ``RequestSent`` (TCP, TLS, handshake), to ``ResponseStarted`` (prefill), to the first text;
    token counts from the ``server``'s usage or ``estimated``."""

    connect_send_s: float
    prefill_s: float
    first_token_s: float
    tokens_per_s: float
    total_s: float
    prompt_tokens: int
    prompt_source: str
    answer_tokens: int
    answer_source: str

    @property
    def ttft_s(self) -> float:
        return self.prefill_s + self.first_token_s


async def measure(provider: ProviderSettings, kind: ChannelKind, text: str,
                  tokens: int) -> ProviderAnswer:
    """One prompt on a fresh channel of ``kind``."""
    request = TurnRequest(provider.model, (Message("user", text),), max_output_tokens=tokens)
    nan = float("nan")
    sent = started = first = last = nan
    chars = 0
    usage: UsageReported | None = None
    opened = time.perf_counter()
    channel = open_channel(kind, base_url=provider.base_url or "", api_key=provider.api_key,
                           max_retries=0, secrets=provider.secrets,
                           **({"warm_spare": False} if kind == "responses_ws" else {}))
    try:
        async for event in channel.stream(request):
            if isinstance(event, RequestSent):
                sent = event.at
            elif isinstance(event, ResponseStarted) and started != started:
                started = event.at
            elif isinstance(event, TextDelta):
                last = time.perf_counter()
                first = last if first != first else first
                chars += len(event.text)
            elif isinstance(event, UsageReported):
                usage = event
    finally:
        await channel.aclose()
    ended = time.perf_counter()
    if started != started:  # no first event of its own: the first text is the first event
        started = first
    prompt_tokens, prompt_source = ((usage.input_tokens, "server")
                                    if usage is not None and usage.input_tokens
                                    else (count_tokens(text), "estimated"))
    answer_tokens, answer_source = ((usage.output_tokens, "server")
                                    if usage is not None and usage.output_tokens
                                    else (round(chars / 4), "estimated"))
    span = last - first
    return ProviderAnswer(sent - opened, started - sent, first - started,
                          answer_tokens / span if span > 0 else nan, ended - opened,
                          prompt_tokens, prompt_source, answer_tokens, answer_source)


# channel kind -> prompt size -> the answers, or the error that stopped that size
Results = dict[str, dict[int, list[ProviderAnswer] | str]]


async def run(provider: ProviderSettings, kinds: list[ChannelKind], sizes: list[int],
              reps: int, tokens: int, *, same: bool) -> Results:
    """Every size, ``reps`` prompts each, the channels interleaved, after a warm-up each."""
    seed = secrets.randbits(32)
    for kind in kinds:
        await measure(provider, kind, prompt(64, -1, seed=seed), 8)
    results: Results = {kind: {} for kind in kinds}
    for size in sizes:
        for rep in range(reps):
            text = prompt(size, rep, same=same, seed=seed)
            for kind in kinds:
                done = results[kind].get(size)
                if isinstance(done, str):
                    continue
                try:
                    answer = await measure(provider, kind, text, tokens)
                except ChannelError as exc:
                    results[kind][size] = exc.message
                    continue
                results[kind].setdefault(size, []).append(answer)  # type: ignore[union-attr]
    return results


def _median(values: list[float]) -> float:
    real = [v for v in values if v == v]
    return statistics.median(real) if real else float("nan")


def _seconds(value: float) -> str:
    return "-" if value != value else f"{value:.3f} s"


def table(results: Results) -> str:
    """One table per channel: a row per prompt size, medians."""
    out: list[str] = []
    for kind, sizes in results.items():
        out += [f"{CHANNEL_NAMES[kind]}:", "",
                "| prompt | prompt tokens | prefill | first token | TTFT | tokens/s | "
                "answer tokens | connect + send | total |", "|---|---|---|---|---|---|---|---|---|"]
        for size, answers in sizes.items():
            if isinstance(answers, str):
                out.append(f"| {size_label(size)} | failed: {answers} | | | | | | | |")
                continue

            def median(key: str, answers: list[ProviderAnswer] = answers) -> float:
                return _median([float(getattr(a, key)) for a in answers])

            tps = median("tokens_per_s")
            out.append(
                f"| {size_label(size)} | {round(median('prompt_tokens')):,} "
                f"({answers[0].prompt_source}) | {_seconds(median('prefill_s'))} | "
                f"{_seconds(median('first_token_s'))} | {_seconds(median('ttft_s'))} | "
                f"{'-' if tps != tps else f'{tps:,.0f}'} | {round(median('answer_tokens')):,} "
                f"({answers[0].answer_source}) | {_seconds(median('connect_send_s'))} | "
                f"{_seconds(median('total_s'))} |")
        out.append("")
    return "\n".join(out).rstrip("\n")


def bench_provider(name: str | None, *, base_url: str | None, model: str | None,
                   sizes: str, reps: int, tokens: int, same: bool, ttft_ms: float,
                   tps: float, docs: Path | None) -> int:
    """Print (and with ``docs`` write) the tables; the exit code."""
    flags: dict[str, object] = {key: value for key, value in
                                (("provider", name), ("base_url", base_url), ("model", model))
                                if value is not None}
    try:
        wanted = [parse_size(word) for word in sizes.split(",") if word.strip()]
        settings = load_settings(Path.cwd(), flags, os.environ)
    except (ValueError, SettingsError) as exc:
        print(f"spark bench provider: {exc}", flush=True)
        return 2
    provider = settings.provider
    bundled = provider.kind == "mock" and not provider.base_url
    with ExitStack() as stack:
        if bundled:
            token = secrets.token_hex(8)
            engine = stack.enter_context(start_engine(
                token, "--brain", "lorem", "--ttft-ms", f"{ttft_ms:g}", "--tps", f"{tps:g}"))
            provider = ProviderSettings("mock", "mock", engine.url + "/v1", "spark-lorem",
                                        token, "SPARK_API_KEY", Secrets((token,)))
            kinds: list[ChannelKind] = ["chat_sse", "responses_ws"]
            where = (f"the bundled engine in its own process (--brain lorem --ttft-ms "
                     f"{ttft_ms:g} --tps {tps:g})")
        else:
            kinds = channels_for(provider)
            where = f"{provider.model} at {provider.shown_base_url}"
        try:
            results = asyncio.run(run(provider, kinds, wanted, reps, tokens, same=same))
        except ChannelError as exc:
            print(f"spark bench provider: {provider.name}: {exc.message}", flush=True)
            return 3
    cache = "the same prompt every time (cache hits allowed)" if same else (
        "a different prompt every time (no cache hits)")
    head = (f"{provider.name}: {where}; {reps} answer(s) of up to {tokens} tokens per prompt "
            f"size, {cache}, each on a fresh connection; medians")
    command = (f"spark bench provider{' --provider ' + name if name else ''} --sizes "
               f"{sizes} --reps {reps} --tokens {tokens}"
               + (f" --ttft-ms {ttft_ms:g}" if bundled else ""))
    report(f"{head}.\n\n{table(results)}", command, SECTION, docs, docs is None)
    return 0


def register(bench_app: typer.Typer) -> None:
    @bench_app.command("provider")
    def bench_provider_command(
        provider: str | None = typer.Option(
            None, "--provider", help="The provider (default: the configured one; mock: the "
            "bundled engine, started in its own process)."),
        base_url: str | None = typer.Option(None, "--base-url", help="Its API root."),
        model: str | None = typer.Option(None, "--model", help="The model."),
        sizes: str = typer.Option(DEFAULT_SIZES, "--sizes",
                                  help="Prompt sizes in tokens, e.g. 1k,4k,16k."),
        reps: int = typer.Option(3, "--reps", min=1, help="Prompts per size (medians)."),
        tokens: int = typer.Option(64, "--tokens", min=1, help="Answer cap per prompt."),
        same_prompt: bool = typer.Option(
            False, "--same-prompt", help="Send the same prompt every time (cache hits)."),
        ttft_ms: float = typer.Option(
            300.0, "--ttft-ms", min=0.0, help="Bundled engine only: its TTFT."),
        tps: float = typer.Option(2000.0, "--tps", min=1.0,
                                  help="Bundled engine only: its tokens/s."),
        docs: Path | None = typer.Option(
            None, "--docs", help="Also write the tables to this file's '## Provider' section."),
    ) -> None:
        """Prefill vs first token at growing prompt sizes, varied prompts, server usage."""
        raise typer.Exit(bench_provider(provider, base_url=base_url, model=model, sizes=sizes,
                                        reps=reps, tokens=tokens, same=same_prompt,
                                        ttft_ms=ttft_ms, tps=tps, docs=docs))

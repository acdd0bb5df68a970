"""`spark engine serve`: run the bundled mock engine (docs/engine.md), printing its URLs.

``--token`` is required off loopback; exit 2 for usage, 3 when the address cannot be used."""

from __future__ import annotations

import errno
import ipaddress
import sys

import typer


def _is_loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind."),
    port: int = typer.Option(8765, "--port", help="Port (0 = a free one; the URL is printed)."),
    tps: float = typer.Option(1500.0, "--tps", help="Tokens per second per stream."),
    ttft_ms: float = typer.Option(40.0, "--ttft-ms", help="Time to first token (ms)."),
    deep_tps: float = typer.Option(80.0, "--deep-tps",
                                   help="Tokens per second of the deep model (spark-deep)."),
    deep_ttft_ms: float = typer.Option(1500.0, "--deep-ttft-ms",
                                       help="Time to first token of the deep model (ms)."),
    max_streams: int = typer.Option(64, "--max-streams", help="Concurrent generations."),
    queue: int = typer.Option(256, "--queue", help="Waiting requests beyond --max-streams."),
    token: str | None = typer.Option(None, "--token",
                                     help="Required bearer token (mandatory off loopback)."),
    brain: str = typer.Option("rules", "--brain", help="rules, deep, lorem or script:PATH."),
    fault: list[str] = typer.Option(
        [], "--fault", help="drop:N | stall:N:MS | malformed:N | 429:P[:SEED] (repeatable)."),
    max_age: float = typer.Option(3600.0, "--max-age", help="Max connection age (seconds)."),
    tpm: int | None = typer.Option(None, "--tpm", help="Token-bucket limit, tokens/minute."),
    frame_ms: float = typer.Option(10.0, "--frame-ms", help="Coalescing interval (ms)."),
    per_token: bool = typer.Option(
        False, "--per-token", help="One token per message, as real providers stream."),
    max_output_tokens: int = typer.Option(
        128_000, "--max-output-tokens", help="Most output tokens per response (load tests)."),
    slips: float = typer.Option(
        0.0, "--slips", help="Share (0..1) of the rules brain's edits that make a real "
        "model's mistake on purpose, seeded by the request's seed (docs/brains.md)."),
) -> None:
    """Serve the Responses WebSocket and HTTP endpoints of the bundled engine."""
    import asyncio  # deferred: spark --help

    # deferred: spark --help
    from spark_cli.engine.core.config import EngineConfig, FaultConfig, parse_fault

    if not _is_loopback(host) and not token:
        typer.echo(f"spark engine: refusing to bind {host} without --token "
                   "(anyone on the network could use it); pass --token SECRET", err=True)
        raise typer.Exit(2)
    try:
        faults = FaultConfig()
        for spec in fault:
            faults = parse_fault(spec, faults)
        config = EngineConfig(
            host=host, port=port, tps=tps, ttft_ms=ttft_ms, deep_tps=deep_tps,
            deep_ttft_ms=deep_ttft_ms, max_streams=max_streams,
            queue=queue, token=token, brain=brain, frame_ms=frame_ms, per_token=per_token,
            max_connection_age_s=max_age, tpm=tpm, faults=faults,
            max_output_tokens=max_output_tokens, slips=slips,
        )
    except ValueError as exc:
        typer.echo(f"spark engine: {exc}", err=True)
        raise typer.Exit(2) from None
    try:
        asyncio.run(_serve(config))
    except KeyboardInterrupt:
        pass
    except ValueError as exc:  # a bad --brain (unknown name, unreadable script)
        typer.echo(f"spark engine: {exc}", err=True)
        raise typer.Exit(2) from None
    except OSError as exc:
        why = "address in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        typer.echo(f"spark engine: cannot listen on {host}:{port}: {why}", err=True)
        raise typer.Exit(3) from None


async def _serve(config: object) -> None:
    import asyncio  # deferred: spark --help

    from spark_cli.engine.serving.server import run_engine  # deferred: spark --help

    async with run_engine(config) as engine:  # type: ignore[arg-type]
        sys.stdout.write(f"spark engine listening on {engine.ws_url} ({engine.url})\n")
        sys.stdout.flush()
        await asyncio.Event().wait()


def register(app: typer.Typer) -> None:
    engine_app = typer.Typer(help="The bundled mock wafer-scale engine.", no_args_is_help=True)
    engine_app.command("serve")(serve)
    app.add_typer(engine_app, name="engine")

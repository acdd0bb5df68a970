"""`spark rewind`: list the last saved session's messages, and go back to one (``--to N``):
its code, its conversation, or both. Exit 1 when refused, 2 for bad input."""

from __future__ import annotations

import json
import time
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

if TYPE_CHECKING:
    from spark_cli.session.workspace.rewind_code import CodeRewind
    from spark_cli.session.workspace.store import SavedConversation, SessionStore
    from spark_cli.session.workspace.turns import TurnRecord

SCOPES = ("code", "conversation", "both")


def _fail(message: str, code: int = 1) -> typer.Exit:
    typer.echo(f"spark rewind: {message}", err=True)
    return typer.Exit(code)


def _listed(turns: tuple[TurnRecord, ...]) -> list[dict[str, Any]]:
    return [{"n": len(turns) - index, "text": turn.text,
             "time": datetime.fromtimestamp(turn.time).astimezone().isoformat("T", "seconds"),
             "edited": list(turn.edited), "commands": list(turn.commands)}
            for index, turn in reversed(list(enumerate(turns)))]


def _print_list(saved: SavedConversation, as_json: bool) -> None:
    listed = _listed(saved.turns)
    if as_json:
        typer.echo(json.dumps(listed))
        return
    if not listed:
        typer.echo(f"session {saved.id}: no message to rewind to")
    for entry, turn in zip(listed, reversed(saved.turns), strict=True):
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(turn.time))
        first = (turn.text.strip().splitlines() or [""])[0][:100]
        typer.echo(f"{entry['n']:>3}  {when}  {first}")
        if turn.edited:
            typer.echo(f"       edited: {', '.join(turn.edited)}")
        if turn.commands:
            typer.echo(f"       changed by commands (not restorable): {', '.join(turn.commands)}")


def _conversation(store: SessionStore, saved: SavedConversation, index: int) -> str | None:
    """Drop turns ``index`` on from the saved session (its message becomes the draft)."""
    from spark_cli.session.workspace.turns import rewound  # deferred: spark --help

    turn = saved.turns[index]
    shown = saved.shown[:turn.shown_at] if turn.shown_at >= 0 else ()
    return store.save_conversation(
        rewound(saved.history, saved.turns, index), provider=saved.provider, model=saved.model,
        shown=shown, turns=saved.turns[:index]) or store.save_draft(turn.text)


def _rewind(store: SessionStore, saved: SavedConversation, n: int, scope: str, force: bool,
            as_json: bool) -> None:
    from spark_cli.session.workspace.rewind_code import rewind_turns  # deferred: spark --help

    index = len(saved.turns) - n
    turn = saved.turns[index]
    result: dict[str, Any] = {"n": n, "scope": scope, "text": turn.text, "code": None,
                              "conversation": None}
    code = rewind_turns(store.root, saved.turns, index, force=force) \
        if scope != "conversation" else None
    ok = code is None or code.status in ("rewound", "nothing")
    if code is not None:
        result["code"] = asdict(code)
    problem = _conversation(store, saved, index) if ok and scope != "code" else None
    if ok and scope != "code" and problem is None:
        result["conversation"] = {"dropped": len(saved.turns) - index, "draft": turn.text}
    result["ok"] = ok and problem is None
    if as_json:
        typer.echo(json.dumps(result))
    else:
        _say(result, code, problem)
    if not result["ok"]:
        raise typer.Exit(1)


def _say(result: dict[str, Any], code: CodeRewind | None, problem: str | None) -> None:
    if code is not None:
        typer.echo(f"code: {code.message}", err=code.status in ("refused", "failed"))
        if code.not_restorable:
            typer.echo("not restorable (changed by commands): " + ", ".join(code.not_restorable))
    if problem is not None:
        typer.echo(f"conversation: not rewound: {problem}", err=True)
    elif result["conversation"] is not None:
        typer.echo(f"conversation: dropped {result['conversation']['dropped']} turn(s); the "
                   "message is the draft of the next `spark`:")
        typer.echo(result["text"])


def register(app: typer.Typer) -> None:
    @app.command("rewind")
    def rewind_command(
        list_: bool = typer.Option(False, "--list", help="List the messages, newest first."),
        to: int | None = typer.Option(None, "--to", help="Go back to message N (from --list)."),
        scope: str = typer.Option("both", "--scope", help="code, conversation or both."),
        force: bool = typer.Option(False, "--force", help="Restore files changed since too."),
        as_json: bool = typer.Option(False, "--json", help="JSON: the list, or the result."),
        root: Path | None = typer.Option(None, "--root", help="Repo root (default: cwd's)."),
    ) -> None:
        """Go back to a message of the repo's last saved session: its code, its conversation."""
        from spark_cli.session.workspace.store import SessionStore  # deferred: spark --help
        from spark_cli.tui.setup import project_root  # deferred: spark --help

        if scope not in SCOPES:
            raise _fail(f"--scope is code, conversation or both, not {scope!r}", 2)
        if list_ and to is not None:
            raise _fail("--list or --to N, not both", 2)
        store = SessionStore(project_root(root or Path.cwd()))
        saved = store.load_conversation()
        for line in store.take_problems():
            typer.echo(line, err=True)
        if saved is None:
            raise _fail("no saved session in this repo (`spark` saves one per conversation)")
        if to is None:
            _print_list(saved, as_json)
            return
        if not 1 <= to <= len(saved.turns):
            raise _fail(f"no message {to}: session {saved.id} has {len(saved.turns)} "
                        "(spark rewind --list)", 2)
        _rewind(store, saved, to, scope, force, as_json)

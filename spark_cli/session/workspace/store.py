"""What survives a crash or a restart, per repo (``$SPARK_STATE_DIR/repos/<slug>``): the draft,
the queue, the prompt history, the saved conversations; one small JSON file per concern."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

from spark_cli.edits.disk.atomic import remove_file, remove_stale_temps, write_atomic
from spark_cli.protocol.channel import ConversationItem
from spark_cli.record import record
from spark_cli.session.config.state_dir import repo_slug, state_base
from spark_cli.session.workspace.turns import (
    TurnRecord,
    Unusable,
    item_entry,
    parse_item,
    parse_turns,
    turn_entries,
)

VERSION = 1
MAX_PROMPTS = 500
DRAFT, QUEUE, PROMPTS, CONVERSATION = "draft.json", "queue.json", "prompts.json", \
    "conversation.json"
SESSIONS = "conversations"
"""The saved conversations, ``<id>.json`` each (``conversation.json``: the one from before ids)."""
MAX_SESSIONS = 50
LEGACY_ID = "conversation"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_T = TypeVar("_T")


@record
class SavedState:
    """What the TUI restores on start."""

    draft: str = ""
    queue: tuple[str, ...] = ()
    prompts: tuple[str, ...] = ()
    """Sent prompts, oldest first (Up/Down history), at most ``MAX_PROMPTS``."""
    problems: tuple[str, ...] = ()
    """One line per file that could not be read: shown, never fatal."""
    first_run: bool = True
    """Nothing was ever sent from this repo (no history, no conversation): the TUI's hint."""


@record
class ShownItem:
    """One thing a front end showed (``kind``: "prompt", "edit", ...), to show it again on resume;
    ``detail``: an edit's diff, a prompt's "queued"."""

    kind: str
    text: str
    detail: str = ""


@record
class SavedConversation:
    """A saved conversation of this repo (for ``--resume`` / ``/resume``, ``spark rewind``)."""

    history: tuple[ConversationItem, ...]
    provider: str
    model: str
    saved_at: float
    shown: tuple[ShownItem, ...] = ()
    """What the front end showed of it, in order (empty in files from before it was kept)."""
    turns: tuple[TurnRecord, ...] = ()
    """Every turn as it was (what a rewind lists), oldest first."""
    id: str = ""


@record
class SessionInfo:
    """A saved conversation as ``--resume`` lists it."""

    id: str
    saved_at: float
    messages: int
    first: str
    """Its first message as the user typed it (else "")."""


def new_session_id() -> str:
    """``YYYYmmdd-HHMMSS-xxxx`` (local time): sorts by start, readable in a list."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{os.urandom(2).hex()}"


class SessionStore:
    """The saved state of one repo. Writes are atomic (only a conversation is fsynced); nothing
    raises: an unusable file is kept as ``*.corrupt`` and a failed write is said once, each a
    line for `take_problems`. One thread at a time; between two processes the last write wins."""

    def __init__(self, root: Path, state_dir: Path | None = None) -> None:
        self.root = Path(os.path.realpath(root))
        self.folder = Path(state_dir) if state_dir is not None else (
            state_base() / "repos" / repo_slug(self.root))
        self._pending: list[str] = []  # problem lines not handed out yet (load() hands out its own)
        self._failing: set[str] = set()  # files whose last write failed (reported once)
        self._prompts: list[str] | None = None  # cached history, read on first use
        self._written: dict[str, bytes] = {}  # the last bytes each file got (skip repeats)
        self.session_id = new_session_id()
        """The conversation `save_conversation` writes (the loaded one, or new)."""

    def take_problems(self) -> list[str]:
        """The problem lines not handed out yet (`load` hands out its own)."""
        new, self._pending = self._pending, []
        return new

    def load(self) -> SavedState:
        """The draft, queue and history; unreadable files become problem lines, not errors."""
        start = len(self._pending)
        self._written.clear()  # what is on disk now is what counts
        remove_stale_temps(self.folder)  # temp files a crash left behind
        draft = self._read(DRAFT, _parse_draft)
        queue = self._read(QUEUE, _parse_items)
        prompts = self._read(PROMPTS, _parse_items)
        self._prompts = list(prompts or ())[-MAX_PROMPTS:]
        found = self._pending[start:]
        del self._pending[start:]
        first = not self._prompts and not (self.folder / CONVERSATION).exists() \
            and not (self.folder / SESSIONS).is_dir()
        return SavedState(draft or "", tuple(queue or ()), tuple(self._prompts), tuple(found),
                          first_run=first)

    def load_conversation(self, session_id: str | None = None) -> SavedConversation | None:
        """Conversation ``session_id`` (default: newest), saved to from now on; None if unusable."""
        if session_id is None:
            ids = self.conversation_ids()
            listed = self.list_conversations() if len(ids) > 1 else []
            session_id = listed[0].id if listed else ids[0] if ids else LEGACY_ID
        elif not _ID.fullmatch(session_id):
            return None
        saved = self._read(self._name(session_id), self._parse_conversation, "conversation")
        if saved is not None:
            self.session_id = session_id
            saved = replace(saved, id=session_id)
        return saved

    def conversation_ids(self) -> list[str]:
        """The saved conversations' ids, in no order (no file is read)."""
        try:
            names = [p.stem for p in (self.folder / SESSIONS).iterdir() if p.suffix == ".json"]
        except OSError:
            names = []
        return [*names, LEGACY_ID] if (self.folder / CONVERSATION).exists() else names

    def list_conversations(self) -> list[SessionInfo]:
        """The saved conversations, newest first (unreadable ones left out)."""
        found = []
        for name in self.conversation_ids():
            saved = self._read(self._name(name), self._parse_conversation, "conversation")
            if saved is not None:
                first = saved.turns[0].text if saved.turns else next(
                    (i.text for i in saved.shown if i.kind == "prompt"), "")
                found.append(SessionInfo(name, saved.saved_at, len(saved.history), first))
        return sorted(found, key=lambda i: (i.saved_at, i.id), reverse=True)

    def fork(self) -> str:
        """Go on in a new conversation (the one saved so far stays as it is); its id."""
        self.session_id = new_session_id()
        return self.session_id

    @staticmethod
    def _name(session_id: str) -> str:
        return CONVERSATION if session_id == LEGACY_ID else f"{SESSIONS}/{session_id}.json"

    def _read(self, name: str, parse: Callable[[dict[str, Any]], _T],
              kind: str | None = None) -> _T | None:
        path = self.folder / name
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            return None
        except OSError as exc:
            self._pending.append(f"{path}: cannot be read ({exc.strerror or exc}); ignored")
            return None
        try:
            raw = json.loads(data)
            if not isinstance(raw, dict):
                raise Unusable("not a JSON object")
            kind = kind or name.removesuffix(".json")
            if raw.get("kind") != kind or raw.get("version") != VERSION:
                raise Unusable(f"not a version-{VERSION} spark {kind} file "
                                f"(kind {raw.get('kind')!r}, version {raw.get('version')!r})")
            return parse(raw)
        except (ValueError, RecursionError) as exc:
            why = f"not valid JSON ({exc})" if not isinstance(exc, Unusable) else str(exc)
            self._pending.append(f"{path}: {why}; {self._set_aside(path)}")
            return None

    def _set_aside(self, path: Path) -> str:
        aside = path.with_name(path.name + ".corrupt")
        try:
            os.replace(path, aside)
        except OSError as exc:
            return f"ignored (could not move it aside: {exc.strerror or exc})"
        return f"ignored and kept as {aside.name}"

    def _parse_conversation(self, raw: dict[str, Any]) -> SavedConversation:
        provider, model, saved_at = raw.get("provider"), raw.get("model"), raw.get("saved_at")
        if not (isinstance(provider, str) and isinstance(model, str)):
            raise Unusable("provider and model must be strings")
        if not isinstance(saved_at, (int, float)) or isinstance(saved_at, bool):
            raise Unusable("saved_at must be a number")
        messages = raw.get("messages")
        if not isinstance(messages, list):
            raise Unusable("messages must be a list")
        history = [parse_item(number, entry) for number, entry in enumerate(messages, 1)]
        shown = raw.get("shown", [])
        if not isinstance(shown, list) or not all(
                isinstance(i, list) and len(i) == 3 and all(isinstance(p, str) for p in i)
                for i in shown):
            raise Unusable("shown must be a list of [kind, text, detail]")
        return SavedConversation(tuple(history), provider, model, float(saved_at),
                                 tuple(ShownItem(*item) for item in shown),
                                 parse_turns(raw.get("turns", []), history))

    def save_draft(self, text: str) -> str | None:
        """Save the prompt's unsent text; returns a problem line if the write newly failed."""
        return self._write(DRAFT, {"text": text})

    def save_queue(self, items: Sequence[str]) -> str | None:
        return self._write(QUEUE, {"items": list(items)})

    def add_prompt(self, text: str) -> str | None:
        """Append a sent prompt to the history (not a blank one or a repeat of the last)."""
        if not text.strip():
            return None
        if self._prompts is None:
            self._prompts = list(self._read(PROMPTS, _parse_items) or ())
        if self._prompts and self._prompts[-1] == text:
            return None
        self._prompts.append(text)
        del self._prompts[:-MAX_PROMPTS]
        return self._write(PROMPTS, {"items": self._prompts})

    def save_conversation(self, history: Sequence[ConversationItem], *, provider: str,
                          model: str, shown: Sequence[ShownItem] = (),
                          turns: Sequence[TurnRecord] = ()) -> str | None:
        """Save the conversation as ``session_id`` (the oldest beyond ``MAX_SESSIONS`` go)."""
        payload = {"root": str(self.root), "provider": provider, "model": model,
                   "saved_at": time.time(), "id": self.session_id,
                   "messages": [item_entry(item) for item in history],
                   "shown": [[i.kind, i.text, i.detail] for i in shown],
                   "turns": turn_entries(turns, history)}
        name = self._name(self.session_id)
        new = not (self.folder / name).exists()
        problem = self._write(name, payload, durable=True, kind="conversation")
        if new and problem is None:
            self._prune()
        return problem

    def _prune(self) -> None:
        try:
            paths = sorted((self.folder / SESSIONS).glob("*.json"),
                           key=lambda p: p.stat().st_mtime, reverse=True)
            for path in paths[MAX_SESSIONS:]:
                remove_file(path)
        except OSError:
            pass  # kept: the next new conversation tries again

    def _write(self, name: str, body: dict[str, Any], *, durable: bool = False,
               kind: str | None = None) -> str | None:
        kind = kind or name.removesuffix(".json")
        # ensure_ascii: lone surrogates (possible in pasted text) survive as \\udxxx escapes
        data = json.dumps({"version": VERSION, "kind": kind, **body}).encode("ascii")
        if self._written.get(name) == data:
            return None  # the same bytes as the last successful write: nothing to do
        path = self.folder / name
        try:
            self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)  # prompts may hold secrets
            path.parent.mkdir(exist_ok=True, mode=0o700)
            write_atomic(path, data, 0o600, durable=durable)
        except OSError as exc:
            self._written.pop(name, None)
            if name in self._failing:
                return None  # reported when it first failed
            self._failing.add(name)
            line = (f"{path}: cannot be saved ({exc.strerror or exc}); "
                    "it lives only in memory until a save succeeds")
            self._pending.append(line)
            return line
        self._written[name] = data
        self._failing.discard(name)
        return None

def _parse_draft(raw: dict[str, Any]) -> str:
    text = raw.get("text")
    if not isinstance(text, str):
        raise Unusable("text must be a string")
    return text


def _parse_items(raw: dict[str, Any]) -> list[str]:
    items = raw.get("items")
    if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
        raise Unusable("items must be a list of strings")
    return items

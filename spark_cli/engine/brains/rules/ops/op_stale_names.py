"""Fixing a name a rename left stale, from pytest's output: the new name is Python's hint,
else the closest top-level name of the home module (docs/brains.md)."""

from __future__ import annotations

import difflib
import re

from spark_cli.engine.brains.base import BrainCall, BrainRequest
from spark_cli.engine.brains.code.command_results import StaleName
from spark_cli.engine.brains.code.edit_text import FileChange
from spark_cli.engine.brains.code.lookups import (
    LIST_FILES,
    LOOK_TOOLS,
    READ_FILE,
    Lookups,
    ReadWindows,
    call,
    clean_path,
)
from spark_cli.engine.brains.code.trees import parse
from spark_cli.engine.brains.rules.instruction_parser import Instruction
from spark_cli.engine.brains.rules.looking import Look, look_first, looking
from spark_cli.engine.brains.rules.ops.op_rename import rename
from spark_cli.engine.brains.rules.results import CannotHelp, OpResult


def _home(stale: StaleName, paths: list[str] | tuple[str, ...]) -> str | None:
    """Which of ``paths`` is the home module (the longest match of an absolute path)."""
    if stale.module:
        stem = stale.module.replace(".", "/")
        wanted = (f"{stem}.py", f"{stem}/__init__.py")
        return next((p for w in wanted for p in paths if p == w or p.endswith("/" + w)), None)
    where = stale.where
    found = [p for p in paths if p == where or (where.startswith("/") and where.endswith("/" + p))]
    return max(found, key=len) if where and found else None


def _home_calls(stale: StaleName, files: dict[str, str], seen: Lookups) -> list[BrainCall]:
    """Read a relative ``where``; else find the home module by name, then read it."""
    if _home(stale, list(files)) is not None or not (stale.module or stale.where):
        return []
    if not stale.module and not stale.where.startswith("/"):
        path = clean_path(stale.where)
        return [] if seen.asked_to_read(path) else [call(READ_FILE, path=path)]
    glob = (f"**/{stale.module.replace('.', '/')}{{.py,/__init__.py}}" if stale.module
            else f"**/{stale.where.rsplit('/', 1)[-1]}")
    if not any(c.name == LIST_FILES and c.arguments.get("glob") == glob for c in seen.calls):
        return [call(LIST_FILES, glob=glob)]
    found = [_home(stale, listing.paths) for _, listing in seen.listings()]
    return [call(READ_FILE, path=p) for p in dict.fromkeys(found)
            if p is not None and not seen.asked_to_read(p)]


def _look(request: BrainRequest, stale: tuple[StaleName, ...], files: dict[str, str],
          reads: ReadWindows) -> Look | None:
    if (seen := looking(request)) is None:
        return None
    calls: dict[tuple[str, str], BrainCall] = {}
    names = ", ".join(f"`{name.old}`" for name in stale)
    preamble = (f"The tests fail on {names}, gone from the code; I'll look for where "
                f"{'it' if len(stale) == 1 else 'they'} went.\n")
    if any(c.name in LOOK_TOOLS for c in seen.calls):
        preamble = "I'll read what I found.\n"
    for name in stale:
        look = look_first(request, Instruction("rename", name=name.old), "", files, reads)
        home = _home_calls(name, files, seen)
        for one in [*(look.calls if look is not None else ()), *home]:
            calls.setdefault((one.name, one.arguments), one)
    return Look(preamble, tuple(calls.values())) if calls else None


def top_names(path: str, text: str) -> list[str]:
    """The names a python module defines or imports at its top level."""
    parsed = parse(path, text)
    if parsed is None:
        return []
    names: list[str] = []
    for node in parsed.tree.root_node.children:
        if node.type == "import_from_statement":
            names += [parsed.node_text(n.child_by_field_name("alias") or n)
                      for n in node.children_by_field_name("name")]
            continue
        if node.type == "decorated_definition":
            node = node.child_by_field_name("definition") or node
        if node.type == "expression_statement" and node.named_children:
            node = node.named_children[0]
        target = node.child_by_field_name("name") or node.child_by_field_name("left")
        if target is not None and target.type == "identifier":
            names.append(parsed.node_text(target))
    return names


def new_name(stale: StaleName, files: dict[str, str]) -> tuple[str, str]:
    """``(new name, home module)`` for a stale name (raises :class:`CannotHelp`)."""
    home = _home(stale, list(files)) or ""
    if stale.hint:
        return stale.hint, home
    names = [n for n in top_names(home, files[home]) if n != stale.old] if home else []
    containing = [n for n in names if stale.old in n or n in stale.old]
    best = difflib.get_close_matches(stale.old, containing or names, n=1,
                                     cutoff=0.0 if containing else 0.4)
    if not best:
        where = home or stale.module or stale.where or "the code"
        raise CannotHelp(f"The tests fail on `{stale.old}`, which {where} no longer has, and "
                         "I cannot tell what it is called now, so I cannot fix it.")
    return best[0], home


def fix_stale(request: BrainRequest, stale: tuple[StaleName, ...], files: dict[str, str],
              reads: ReadWindows, output: str) -> Look | OpResult:
    """The calls to make first, or the fix (raises :class:`CannotHelp`)."""
    look = _look(request, stale, files, reads)
    if look is not None:
        return look
    before, now = dict(files), dict(files)
    changed: dict[str, list[FileChange]] = {}
    said: list[str] = []
    summaries: list[str] = []
    for name in stale:
        new, home = new_name(name, now)
        old = re.escape(name.old)
        word = re.compile(rf"\b{old}\b")
        imports = re.compile(rf"^[ \t]*(?:from[ \t]+\S+[ \t]+)?import[ \t][^\n]*\b{old}\b", re.M)
        targets = {p: t for p, t in now.items() if p == home or (
            p.endswith(".py") and word.search(t) and (p in output or imports.search(t)))}
        result = rename(Instruction("rename", name=name.old, new=new), targets, [])
        for change in result.changes:
            now[change.path] = change.new
            changed.setdefault(change.path, []).append(change)
        said.append(f"`{name.old}` was renamed `{new}`" + (f" ({home})" if home else ""))
        summaries.append(result.summary)
    changes = tuple(c[0] if len(c) == 1 else FileChange(p, before[p], now[p])
                    for p, c in changed.items())
    return OpResult(lead="; ".join(said) + ": I'll fix the stale uses.",
                    summary=" ".join(summaries), changes=changes)

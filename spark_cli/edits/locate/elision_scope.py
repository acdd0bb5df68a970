"""Whether an elided SEARCH stays inside the definition it starts in.

A SEARCH shortened with a placeholder (``# ... existing code ...``) is located
piece by piece, each piece after the one before (`locate`). The text then
matches *some* place, but when the last piece is found past the end of the
definition the head is in (the model's ``return self.msg`` exists only in the
next method), the hunk would edit across a definition boundary the model never
saw. `crossed_definition` uses the tree-sitter definitions (`definitions.definitions`)
to tell: the innermost definition holding the first matched line must also hold
the last one. A head outside every definition, or a language spark has no
definition query for (YAML, JSON, plain text), is not judged.
"""

from __future__ import annotations

from spark_cli.edits.lang.definitions import DefinitionSpan, definitions
from spark_cli.edits.locate.misses import LocateFailed


def _innermost(defs: list[DefinitionSpan], row: int) -> DefinitionSpan | None:
    holding = [d for d in defs if d.start <= row <= d.end]
    return max(holding, key=lambda d: (d.start, -d.end)) if holding else None


def crossed_definition(text: str, language: str | None, first: int,
                       last: int) -> LocateFailed | None:
    """The refusal for an elided match over rows ``first``..``last`` (0-based) that
    leaves the definition its first row is in, or None when it stays inside."""
    if language is None or last <= first:
        return None
    scope = _innermost(definitions(text, language), first)
    if scope is None or last <= scope.end:
        return None
    kind = "function" if scope.kind == "function" else "definition"
    return LocateFailed(
        f"the search text elides code ('... existing code ...') and starts in the {kind} "
        f"{scope.name!r} (lines {scope.start + 1}-{scope.end + 1}), but its last lines only "
        f"match at line {last + 1}, past the end of {scope.name!r}: an elided search must "
        f"start and end inside one definition. Quote the lines of {scope.name!r} you mean "
        "(its own last lines), or send one block per definition", "elision")

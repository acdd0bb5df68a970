"""Trees of texts that are not parsed yet: an old tree told about byte edits.

`edited(tree, old, new, edits)` is a copy of ``tree`` told (``Tree.edit``) that
``old`` became ``new`` by ``edits`` (UTF-8 byte triples ``(start, old_end,
new_end)`` in old-text coordinates, ascending): its unchanged nodes carry their
new byte ranges, the changed ones ``has_changes``. Re-parsing it with the new
bytes is tree-sitter's incremental parse.

A `Pending` tree is a parsed tree told about the edits made since: a syntax
check that judged an edit without re-parsing the whole file (`syntax_window`)
leaves one, and the tree is built, by one incremental parse over all the edits,
only when something asks for it (`syntax.parse_text`), or after `MAX_STEPS`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import get_parser
from spark_cli.record import record

if TYPE_CHECKING:
    import tree_sitter

MAX_STEPS = 64  # a longer chain is built (re-parsed) instead of growing


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def _advance(point: tuple[int, int], chunk: bytes) -> tuple[int, int]:
    """The point after ``chunk`` when it starts at ``point``."""
    rows = chunk.count(b"\n")
    if not rows:
        return point[0], point[1] + len(chunk)
    return point[0] + rows, len(chunk) - chunk.rfind(b"\n") - 1


def edited(tree: tree_sitter.Tree, old: bytes, new: bytes,
           edits: Sequence[tuple[int, int, int]]) -> tree_sitter.Tree:
    """A copy of ``tree`` (which is not changed) told that ``old`` became ``new``."""
    tree = tree.copy()
    delta = 0  # byte shift of positions after earlier edits (edits are in old coordinates)
    current = old
    for start, old_end, new_end in edits:
        s, oe, ne = start + delta, old_end + delta, new_end + delta
        replacement = new[s:ne]
        start_point = _point(current, s)  # one scan of the prefix; the ends from there
        tree.edit(start_byte=s, old_end_byte=oe, new_end_byte=ne, start_point=start_point,
                  old_end_point=_advance(start_point, current[s:oe]),
                  new_end_point=_advance(start_point, replacement))
        current = current[:s] + replacement + current[oe:]
        delta += new_end - old_end
    return tree


@record
class Pending:
    """The tree of ``text`` before its re-parse: a parsed tree told about the ``depth``
    edits made since (`edited`), so each later edit costs one more ``Tree.edit``."""

    language: str
    tree: tree_sitter.Tree
    text: bytes
    depth: int = 0

    def then(self, new: bytes, edits: Sequence[tuple[int, int, int]]) -> Pending:
        return Pending(self.language, edited(self.tree, self.text, new, edits), new,
                       self.depth + 1)

    def build(self) -> tree_sitter.Tree:
        """The tree of `text`: one incremental parse over all the edits."""
        if not self.depth:
            return self.tree
        return get_parser(self.language).parse(self.text, self.tree)

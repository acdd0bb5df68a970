"""A cheap first look at an edit's syntax: parse only the top-level items around it.

tree-sitter's incremental re-parse still costs time in proportion to the file, and
most edits change one function. In languages whose files are a flat sequence of
top-level items (`WINDOWED`), the items the edit touches, plus one unchanged item
on each side, are parsed on their own: the edges of that window meet the rest of
the file exactly as they did in the old text, which parsed cleanly. When the
window parses without an ERROR or MISSING node, the edit introduced none
(`window_clean` → True). Anything else (an error in the window, a window that is
most of the file, an edit beyond the items) answers None and the caller does the
full incremental re-parse, which alone decides refusals and their line numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import get_parser

if TYPE_CHECKING:
    import tree_sitter

# a file is a flat sequence of items that parse alike alone and in place
WINDOWED = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c",
                      "cpp"})
_MIN_FILE = 20_000  # bytes: smaller files are re-parsed whole (it is cheap)
_MAX_SHARE = 4  # the window may be at most a quarter of the file
_MAX_ITEMS = 64  # top-level items in a window at most


def _bounds(root: tree_sitter.Node, start: int, old_end: int,
            size: int) -> tuple[int, int] | None:
    """Byte bounds of the items that hold ``start``..``old_end`` plus the unchanged item
    on each side (or the file's start and end where there is none). An item that
    changed in an edit not re-parsed yet (`tree_edits.Pending`) is no boundary: the
    window grows past it (at most `_MAX_ITEMS` items each way)."""
    cursor = root.walk()
    if not cursor.goto_last_child():
        return 0, size
    last = cursor.node
    assert last is not None

    def first_ending_after(offset: int) -> tree_sitter.Node | None:
        # (the binding crashes when no child ends after ``offset``: ask only when one does)
        return root.first_child_for_byte(offset) if offset < last.end_byte else None

    node = first_ending_after(start)
    first = node.prev_sibling if node is not None else last
    node = first_ending_after(old_end)
    after = node.next_sibling if node is not None and node.start_byte < old_end else node
    for _ in range(_MAX_ITEMS):
        if first is not None and first.has_changes:
            first = first.prev_sibling
        elif after is not None and after.has_changes:
            after = after.next_sibling
        else:
            begin = first.start_byte if first is not None else 0
            return begin, after.end_byte if after is not None else size
    return None


def window_clean(language: str, old_tree: tree_sitter.Tree, old: bytes, new: bytes,
                 edits: Sequence[tuple[int, int, int]]) -> bool | None:
    """True when the new text of the items around ``edits`` (old-text byte triples
    ``(start, old_end, new_end)``, ascending) parses cleanly on its own; None when
    this cannot tell (the caller re-parses the whole file). ``old_tree`` may be an
    edited tree not re-parsed yet (`tree_edits.Pending.edited`)."""
    if language not in WINDOWED or len(old) < _MIN_FILE or not edits:
        return None
    start, old_end = edits[0][0], edits[-1][1]
    bounds = _bounds(old_tree.root_node, start, old_end, len(old))
    if bounds is None:
        return None
    begin, end = bounds
    begin = old.rfind(b"\n", 0, begin) + 1  # from the start of its line
    if not begin <= start <= old_end <= end or (end - begin) * _MAX_SHARE > len(old):
        return None
    shift = sum(new_end - old_end for _s, old_end, new_end in edits)
    window = new[begin:end + shift]
    return True if not get_parser(language).parse(window).root_node.has_error else None

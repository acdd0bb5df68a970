"""Checking an edit's syntax without re-parsing the whole file: `window_clean` parses the
top-level items around it, and a `Pending` tree is re-parsed only when asked for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from spark_cli.edits.lang.grammars import get_parser
from spark_cli.record import record

if TYPE_CHECKING:
    import tree_sitter

# a file is a flat sequence of items that parse alike alone and in place
WINDOWED = frozenset({"python", "javascript", "typescript", "tsx", "go", "rust", "java", "c",
                      "cpp"})
_MIN_FILE = 20_000  # bytes: smaller files are re-parsed whole (it is cheap)
_MAX_SHARE = 4  # the window may be at most a quarter of the file
_MAX_ITEMS = 64  # top-level items in a window at most
MAX_STEPS = 64  # a longer chain is built (re-parsed) instead of growing
Edit = tuple[int, int, int]  # byte offsets: start, old end, new end


def _bounds(root: tree_sitter.Node, start: int, old_end: int,
            size: int) -> tuple[int, int] | None:
    """Byte bounds of the items holding the edit plus an unchanged, non-comment item each side."""
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
        if first is not None and (first.has_changes or first.is_extra):
            first = first.prev_sibling
        elif after is not None and (after.has_changes or after.is_extra):
            after = after.next_sibling
        else:
            begin = first.start_byte if first is not None else 0
            return begin, after.end_byte if after is not None else size
    return None


def window_clean(language: str, old_tree: tree_sitter.Tree, old: bytes, new: bytes,
                 edit: Edit) -> bool | None:
    """True when the items around ``edit`` parse cleanly alone; None: cannot tell."""
    if language not in WINDOWED or len(old) < _MIN_FILE:
        return None
    start, old_end, new_end = edit
    bounds = _bounds(old_tree.root_node, start, old_end, len(old))
    if bounds is None:
        return None
    begin, end = bounds
    begin = old.rfind(b"\n", 0, begin) + 1  # from the start of its line
    if not begin <= start <= old_end <= end or (end - begin) * _MAX_SHARE > len(old):
        return None
    window = new[begin:end + new_end - old_end]
    return True if not get_parser(language).parse(window).root_node.has_error else None


def _point(data: bytes, offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, offset)
    return row, offset - (data.rfind(b"\n", 0, offset) + 1)


def _advance(point: tuple[int, int], chunk: bytes) -> tuple[int, int]:
    rows = chunk.count(b"\n")
    if not rows:
        return point[0], point[1] + len(chunk)
    return point[0] + rows, len(chunk) - chunk.rfind(b"\n") - 1


def edited(tree: tree_sitter.Tree, old: bytes, new: bytes, edit: Edit) -> tree_sitter.Tree:
    """A copy of ``tree`` told (``Tree.edit``) about ``edit``."""
    tree = tree.copy()
    start, old_end, new_end = edit
    start_point = _point(old, start)  # one scan of the prefix; the ends from there
    tree.edit(start_byte=start, old_end_byte=old_end, new_end_byte=new_end,
              start_point=start_point, old_end_point=_advance(start_point, old[start:old_end]),
              new_end_point=_advance(start_point, new[start:new_end]))
    return tree


@record
class Pending:
    """The tree of ``text`` before its re-parse: a parsed tree told about ``depth`` edits since."""

    language: str
    tree: tree_sitter.Tree
    text: bytes
    depth: int = 0

    def then(self, new: bytes, edit: Edit) -> Pending:
        return Pending(self.language, edited(self.tree, self.text, new, edit), new,
                       self.depth + 1)

    def build(self) -> tree_sitter.Tree:
        """The tree of `text`: one incremental parse over all the edits."""
        if not self.depth:
            return self.tree
        return get_parser(self.language).parse(self.text, self.tree)

"""Syntax validation of an edit with tree-sitter: would it break a file that parsed cleanly?
Recent trees are cached so the next check is an incremental re-parse."""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, TypeVar

from spark_cli.edits.lang.ends import common_ends
from spark_cli.edits.lang.grammars import get_parser, language_for_path
from spark_cli.edits.lang.syntax_window import MAX_STEPS, Pending, edited, window_clean
from spark_cli.edits.model.outcome import SyntaxVerdict

if TYPE_CHECKING:
    import tree_sitter

_CACHE_SIZE = 8
T = TypeVar("T")
_trees: OrderedDict[tuple[str, str], tree_sitter.Tree] = OrderedDict()
# trees not built yet: (language, text) -> how to build it (an incremental re-parse)
_deferred: OrderedDict[tuple[str, str], Pending] = OrderedDict()
# ".h" is C or C++: a header is refused only when neither grammar accepts the new text
_SECOND_OPINION = {"c": "cpp"}
# data files often templated (Helm, Ansible, Jinja): with {{ }} or {% %} they are text mode
_TEMPLATED = frozenset({"yaml", "json", "toml"})


def parse_text(language: str, text: str) -> tree_sitter.Tree:
    """Parse ``text`` as ``language``; recent results are cached (do not ``edit`` them)."""
    key = (language, text)
    tree = _trees.get(key)
    if tree is not None:
        _trees.move_to_end(key)
        return tree
    pending = _deferred.pop(key, None)
    tree = pending.build() if pending is not None \
        else get_parser(language).parse(text.encode("utf-8"))
    _keep(_trees, key, tree)
    return tree


def _keep(cache: OrderedDict[tuple[str, str], T], key: tuple[str, str], value: T) -> None:
    cache[key] = value
    cache.move_to_end(key)
    while len(cache) > _CACHE_SIZE:
        cache.popitem(last=False)


def prime(path: str, text: str) -> None:
    """Parse ``text`` now so the first check of an edit to it is incremental."""
    language = language_for_path(path)
    if language is not None:
        try:
            parse_text(language, text)
        except ImportError:
            pass


def first_error(tree: tree_sitter.Tree, language: str | None = None) -> tuple[int, str] | None:
    """(1-based line, description) of the first ERROR or MISSING node, or None."""
    node = tree.root_node
    if not node.has_error:
        return None
    if language == "html":
        return _html_error(node)
    while True:
        if node.is_missing:
            return node.start_point.row + 1, f"missing {_token(node.type)}"
        if node.is_error:
            return _describe_error(node)
        for child in node.children:
            if child.has_error or child.is_missing:
                node = child
                break
        else:  # has_error but no child carries it: the node itself is the culprit
            return node.start_point.row + 1, f"invalid {node.type.replace('_', ' ')}"


_HTML_OPEN = frozenset({"start_tag", "end_tag", "element", "text", "self_closing_tag",
                        "comment", "script_element", "style_element", "entity"})


def _html_error(node: tree_sitter.Node) -> tuple[int, str] | None:
    if node.is_missing:
        if node.type == "_implicit_end_tag":
            return None
        return node.start_point.row + 1, f"missing {_token(node.type)}"
    carriers = [c for c in node.children if c.has_error or c.is_missing]
    if node.is_error:
        sexp = str(node)
        if ("UNEXPECTED" in sexp or sexp.count("(ERROR") > 1
                or sexp.count("(MISSING") != sexp.count("(MISSING _implicit_end_tag)")
                or any(c.type not in _HTML_OPEN for c in node.named_children)):
            return _describe_error(node)
        return None  # elements left open: the browser closes them
    if not carriers:  # a hidden MISSING child: an implied end tag, or else the node
        sexp = str(node)
        if sexp.count("(MISSING") == sexp.count("(MISSING _implicit_end_tag)") and \
                "(ERROR" not in sexp:
            return None
        return node.start_point.row + 1, f"invalid {node.type.replace('_', ' ')}"
    for child in carriers:
        found = _html_error(child)
        if found is not None:
            return found
    return None


def _token(kind: str) -> str:
    return f"'{kind}'" if not kind.isidentifier() or len(kind) <= 3 else kind.replace("_", " ")


_OPEN = {"(": ")", "[": "]", "{": "}"}
_CLOSE = {v: k for k, v in _OPEN.items()}
_LEAF_LIMIT = 2000


def _describe_error(node: tree_sitter.Node) -> tuple[int, str]:
    """(1-based line, hint): a missing token, an unbalanced bracket, else the text."""
    stack: list[tuple[str, int]] = []
    pending = [node]
    seen = 0
    while pending and seen < _LEAF_LIMIT:
        current = pending.pop()
        if current.child_count:
            pending.extend(reversed(current.children))
            continue
        seen += 1
        kind, line = current.type, current.start_point.row + 1
        if current.is_missing:
            return line, f"missing {_token(kind)}"
        if kind in _OPEN:
            stack.append((kind, line))
        elif kind in _CLOSE:
            if stack and stack[-1][0] == _CLOSE[kind]:
                stack.pop()
            else:
                return line, f"unmatched '{kind}'"
    if stack:
        kind, line = stack[-1]
        return line, f"'{kind}' opened here is never closed"
    raw = (node.text or b"").decode("utf-8", "replace").strip()
    first = raw.split("\n", 1)[0].strip()
    if len(first) > 40:
        first = first[:37] + "..."
    hint = f"unexpected {first!r}" if first else "unexpected input"
    return node.start_point.row + 1, hint


def check_edit(path: str, old: str,
               new: str) -> tuple[SyntaxVerdict, tree_sitter.Tree | None]:
    """Judge ``old`` → ``new``: refused only when ``old`` parsed clean and ``new`` does not;
    returns the verdict and the new tree (None when not built)."""
    language = language_for_path(path)
    if language is None:
        note = f"{path}: no syntax check was done (not a language spark parses)"
        return SyntaxVerdict(None, True, False, note, None), None
    if language in _TEMPLATED and any(m in old or m in new for m in ("{{", "{%")):
        note = f"{path}: no syntax check was done (template markup: {{{{ }}}} or {{% %}})"
        return SyntaxVerdict(None, True, False, note, None), None
    try:
        pending = _deferred.get((language, old))
        if pending is not None and (language, new) not in _trees:  # old judged clean
            quick = _quick_verdict(language, old, new, pending)
            if quick is not None:
                return quick, None
        old_tree = parse_text(language, old)
        before = first_error(old_tree, language)
        if before is None and (language, new) not in _trees:
            quick = _quick_verdict(language, old, new,
                                   Pending(language, old_tree, old.encode("utf-8")))
            if quick is not None:
                return quick, None
        new_tree = _reparse(language, old, new, old_tree)
    except ImportError as exc:  # a grammar wheel is missing: say so, do not block the edit
        note = f"{path}: no syntax check was done ({exc})"
        return SyntaxVerdict(None, True, False, note, None), None
    _keep(_trees, (language, new), new_tree)
    if before is not None:
        note = (f"{path}: the file already had a syntax error at line {before[0]} "
                f"({before[1]}) before this edit; not judged")
        return SyntaxVerdict(language, True, True, note, None), new_tree
    return _judged(path, language, new, new_tree), new_tree


def _judged(path: str, language: str, new: str, new_tree: tree_sitter.Tree) -> SyntaxVerdict:
    after = first_error(new_tree, language)
    if after is None:
        return SyntaxVerdict(language, True, True, "", None)
    second = _SECOND_OPINION.get(language) if path.lower().endswith(".h") else None
    if second is not None and first_error(parse_text(second, new)) is None:
        return SyntaxVerdict(second, True, True, "", None)
    line, what = after
    message = f"{path}: the edit would introduce a syntax error at line {line} ({what})"
    source = _source_line(new, line)
    if source:
        message += f": {source!r}"
    return SyntaxVerdict(language, False, True, message, line)


def _quick_verdict(language: str, old: str, new: str,
                   pending: Pending) -> SyntaxVerdict | None:
    """Clean by `syntax_window` (the new tree deferred), else None: re-parse the file."""
    if pending.depth >= MAX_STEPS:
        return None
    old_b, new_b = old.encode("utf-8"), new.encode("utf-8")
    span = _changed_span(old_b, new_b)
    if not window_clean(language, pending.tree, old_b, new_b, span):
        return None
    _keep(_deferred, (language, new), pending.then(new_b, span))
    return SyntaxVerdict(language, True, True, "", None)


def _source_line(text: str, line: int, limit: int = 80) -> str:
    lines = text.split("\n")
    shown = lines[line - 1].strip() if line <= len(lines) else ""
    return shown if len(shown) <= limit else shown[:limit - 3] + "..."


def _reparse(language: str, old: str, new: str, old_tree: tree_sitter.Tree) -> tree_sitter.Tree:
    cached = _trees.get((language, new))
    if cached is not None:
        return cached
    old_b, new_b = old.encode("utf-8"), new.encode("utf-8")
    return get_parser(language).parse(new_b, edited(old_tree, old_b, new_b,
                                                    _changed_span(old_b, new_b)))


def _changed_span(old: bytes, new: bytes) -> tuple[int, int, int]:
    prefix, suffix = common_ends(old, new)
    return prefix, len(old) - suffix, len(new) - suffix

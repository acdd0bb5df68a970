"""Which `=======` line divides a SEARCH/REPLACE block, when the text has several.

A Markdown or reStructuredText heading underline (`Usage` over `=====`) or the
middle line of a git conflict looks just like the divider, so the block's body
is kept whole until `>>>>>>> REPLACE` and the divider is chosen then, by these
rules in order (each applies only while more than one line is left):
"""

from __future__ import annotations

import re

_CONFLICT_OPEN = re.compile(r"<{7}(?:[ \t].*)?$")
_CONFLICT_CLOSE = re.compile(r">{7}(?:[ \t].*)?$")
_RULE = re.compile(r"[ \t]*={5,9}[ \t]*$")


def _width(line: str) -> int:
    return len(line.strip())


def _in_conflict(body: list[str], index: int) -> bool:
    """Whether body[index] is the middle of a `<<<<<<<` ... `>>>>>>>` conflict."""
    opened = False
    for line in body[:index]:
        if line[:1] == "<" and _CONFLICT_OPEN.match(line):
            opened = True
        elif line[:1] == ">" and _CONFLICT_CLOSE.match(line):
            opened = False
    return opened and any(line[:1] == ">" and _CONFLICT_CLOSE.match(line)
                          for line in body[index + 1 :])


def _is_title(line: str, width: int) -> bool:
    return (bool(line.strip()) and not line[0].isspace() and _RULE.match(line) is None
            and len(line.rstrip()) == width)


def _heading_rule(body: list[str], index: int) -> bool:
    """Whether body[index] underlines or overlines a heading of its own width."""
    line = body[index].rstrip()
    width = len(line)
    if line != line.lstrip():
        return False
    if index > 0 and _is_title(body[index - 1], width):
        return True
    if index + 2 >= len(body) or index == 0:
        return False
    before = body[index - 1]
    return ((not before.strip() or _RULE.match(before) is not None)
            and _is_title(body[index + 1], width) and body[index + 2].rstrip() == line)


def _echoes(body: list[str], index: int) -> bool:
    """Whether splitting at `index` gives a REPLACE that starts or ends as SEARCH does."""
    search, replace = body[:index], body[index + 1 :]
    if not search or not replace:
        return False
    first, last = search[0].strip(), search[-1].strip()
    return ((bool(first) and replace[0].strip() == first)
            or (bool(last) and replace[-1].strip() == last))


def choose(body: list[str], candidates: list[int], marker: int,
           first_line: int) -> int | str:
    """The index in `body` of the divider among `candidates` (non-empty), or, when it
    cannot be told, a message saying so (`first_line` is body[0]'s line in the text).

    1. a line with as many `=` as the SEARCH marker has `<` wins over the others;
    2. lines between a git conflict's `<<<<<<< name` and `>>>>>>> name` are text;
    3. a heading underline (right under a line of the same width) or overline
       (right over a title and its underline of the same width) is text;
    4. the line after which REPLACE starts with SEARCH's first line, or ends with
       its last line (models repeat the lines around a change), wins.

    If several lines are still left, the block is refused: the message names the
    lines and asks for markers of a length that no `=` line of the text has.
    """
    if len(candidates) == 1:
        return candidates[0]
    left = [i for i in candidates if _width(body[i]) == marker] or candidates
    for rule, wanted in ((_in_conflict, False), (_heading_rule, False), (_echoes, True)):
        if len(left) > 1:
            left = [i for i in left if rule(body, i) == wanted] or left
    if len(left) == 1:
        return left[0]
    return _unclear(body, candidates, left, first_line)


def _unclear(body: list[str], candidates: list[int], left: list[int], first_line: int) -> str:
    """Why no divider among ``left`` could be told apart, and how to write the block."""
    where = ", ".join(str(first_line + i) for i in left)
    used = {_width(body[i]) for i in candidates}
    free = next((n for n in (9, 8, 6, 5, 7) if n not in used), None)
    advice = (f"write it again with {free}-character markers ('{'<' * free} SEARCH', "
              f"'{'=' * free}', '{'>' * free} REPLACE'), a length no '=' line of the text has"
              if free else "split it into blocks whose text has no line of only '='")
    return (f"has several lines that could be its '=======' divider (lines {where}), so "
            f"where SEARCH ends is unclear: {advice}")

"""Recognising the rules brain's instructions: prompt text in, an :class:`Instruction` out.
Matching is case-insensitive, in a fixed order, and linear in the text's length (a client
controls it: every open-ended part of a pattern is bounded); file blocks are cut out first."""
from __future__ import annotations

import bisect
import re
from functools import cache
from typing import Literal

from spark_cli.record import record

Kind = Literal["rename", "replace", "remove_prints", "add_import", "docstring",
               "add_parameter", "delete", "explain", "run", "run_tests", "fix_tests"]
RUN_KINDS = frozenset({"run", "run_tests", "fix_tests"})
"""Instructions that run a command (:mod:`running`); the others edit."""

_ID = r"[`'\"]?([A-Za-z_$][\w$]*)[`'\"]?"
_KIND_WORD = r"(?:(?:the|a|an)\s+)?(?:(?:function|method|class|def|fn|func|symbol|variable|" \
             r"identifier|constant|const|type|struct|field)\s+)?"
_FILE_TOKEN = re.compile(r"[\w./-]+\.\w+|[\w-]+/[\w./-]+")
"""A path line (used with ``fullmatch`` on one line: linear)."""
PATH_RUN = re.compile(r"[\w./-]+")
"""Candidate paths in running text: maximal runs, so nothing backtracks."""
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_CAPTION = re.compile(r"[A-Z][\w -]{0,40}: ")
"""The caption of a context section before a ``~~~`` fence (``Repository map: …``)."""

_TESTS = r"(?:all\s+)?(?:the\s+|my\s+)?(?:unit\s+)?(?:tests?(?:\s+suite)?|test\s+suite)"
_SOURCES: dict[str, str] = {
    "fix_tests": (rf"\brun\s+{_TESTS}(?:\s*,)?\s+(?:and\s+|then\s+)+fix\b|\bfix\s+(?:the\s+|all\s+"
                  r"(?:the\s+)?)?(?:failing|broken)\s+tests?\b|\bfix\s+(?:what|anything|"
                  r"everything|whatever)(?:\s+that)?\s+fails\b"),
    "run_tests": rf"(?:please\s+|now\s+)?run\s+{_TESTS}(?:\s+(?:again|now|please))?[.!]?",
    "run": r"(?:please\s+)?run\s+(?:the\s+command\s+)?(`[^`\n]+`|[^`\s][^\n]*?)[.!]?",
    "rename": rf"\brename\s+{_KIND_WORD}{_ID}\s+(?:to|as|into|->|=>)\s+{_KIND_WORD}{_ID}",
    "replace_head": (r"\b(?:replace|change|substitute)\s+(?:all\s+)?"
                     r"(?:occurrences\s+of\s+)?(['\"`])"),
    "replace_mid": r"(?=(['\"`])\s+(?:with|by|to|for)\s+(['\"`]))",
    "prints": (r"\b(?:remove|delete|strip|drop|clean\s+up|get\s+rid\s+of)\s+"
               r"(?:all\s+)?(?:the\s+)?(?:debug(?:ging)?\s+)?"
               r"(console\.log|println!?|print(?:ln|f)?(?:\(\))?|prints?|"
               r"debug\s+(?:output|statements|logs?)|logs?)\b"),
    "import": (r"\badd\s+(?:an?\s+|the\s+)?import(?:\s+(?:of|for))?\s+[`'\"]?"
               r"((?:from\s+\S{1,200}\s+import\s+[\w., ]{1,200}?)|"
               r"(?:import\s+)?[^`'\"\s]{1,200}?(?:\s+as\s+\w+)?)"
               r"[`'\"]?(?=\s+(?:to|in|into|at)\s|[.!]?\s*$|\s*\n)"),
    "import_in": (r"^\s*(import\s+[\w.]+(?:\s+as\s+\w+)?|"
                  r"from\s+[\w.]+\s+import\s+[\w., ]{1,200}?)"
                  r"\s+(?:in|to|into)\s+\S+"),
    "import_quoted": (r"\badd\s+[`'\"]((?:import|from|use|const|#include)\s"
                      r"[^`'\"]{1,300})[`'\"]"),
    "doc": (rf"\b(?:add|write|generate)\s+(?:an?\s+|the\s+)?(?:docstring|doc\s*comment|"
            rf"documentation|docs?|jsdoc|javadoc|comment)\s+(?:to|for|on)\s+{_KIND_WORD}{_ID}"),
    "param": (r"\badd\s+(?:an?\s+|the\s+)?(?:new\s+|optional\s+)?(?:parameter|param|"
              r"argument|arg)\s+[`'\"]?([A-Za-z_$][\w$]*)"
              r"(?:\s*:\s*([^=`'\"\n]{1,100}?)|\s+of\s+type\s+(\S{1,100}))?"
              r"(?:\s*=\s*((?:\"[^\"\n]{0,100}\"|'[^'\n]{0,100}'|[^`'\"\s]){1,100}))?"
              r"[`'\"]?"
              rf"\s+(?:to|in|on)\s+{_KIND_WORD}{_ID}"),
    "delete": rf"\b(?:delete|remove|drop)\s+{_KIND_WORD}{_ID}(?:\(\))?",
    "explain": (r"\b(?:explain|describe|summari[sz]e|outline|give\s+an\s+overview\s+of|"
                r"what\s+(?:is|does)\s+in)\b"),
}
_QUOTES = "'\"`"


@cache
def _re(name: str) -> re.Pattern[str]:
    """The compiled pattern ``name`` of :data:`_SOURCES` (all case-insensitive)."""
    return re.compile(_SOURCES[name], re.I)


_NOT_COMMANDS = frozenset({"the", "a", "an", "it", "this", "that", "these", "all", "my", "through",
                           "over", "across", "into", "on", "in", "to", "each", "every", "again"})
"""Words that start English after ``run``, not a command (``run through the code``)."""
_NOT_NAMES = frozenset({"the", "a", "an", "all", "this", "that", "it", "function", "method",
                        "class", "unused", "every"})


@record
class Instruction:
    """One recognised instruction: its kind and the names and texts it carries."""

    kind: Kind
    name: str = ""  # the symbol (rename: old name)
    new: str = ""  # rename: new name; replace: new text; add_parameter: default ("" = none)
    old: str = ""  # replace: the text to find
    what: str = ""  # remove_prints: console.log / print / any; add_import: the import;
    # run: the command line
    type: str = ""  # add_parameter: the type ("" = none)


def instruction_text(prompt: str) -> str:
    """The prompt without its fenced blocks (and the path or caption line before each)."""
    out: list[str] = []
    fence: str | None = None
    for line in prompt.split("\n"):
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)
            if out and (_FILE_TOKEN.fullmatch(out[-1].strip().strip("`")) or (
                    fence[0] == "~" and _CAPTION.match(out[-1]))):
                out.pop()
            continue
        if fence is not None:
            if line.strip() == fence:
                fence = None
            continue
        out.append(line)
    return "\n".join(out).strip()


def mentioned_paths(text: str, paths: list[str]) -> list[str]:
    """The known ``paths`` the instruction names (by full path or by file name)."""
    tokens = {t.strip(".,;:!?`'\"()") for t in PATH_RUN.findall(text)}
    named = []
    for path in paths:
        base = path.rsplit("/", 1)[-1]
        if path in tokens or base in tokens or any(t.endswith("/" + base) and path.endswith(t)
                                                   for t in tokens):
            named.append(path)
    return named


def _name(value: str) -> str | None:
    return None if value.lower() in _NOT_NAMES else value


def _replace(text: str) -> tuple[str, str] | None:
    """``replace 'OLD' with 'NEW'`` found without backtracking (heads, middles, bisect)."""
    heads = list(_re("replace_head").finditer(text))
    if not heads:
        return None
    last = {q: text.rfind(q) for q in _QUOTES}
    middles: dict[str, list[tuple[int, int, str]]] = {q: [] for q in _QUOTES}
    for m in _re("replace_mid").finditer(text):
        close, new_start = m.group(2), m.end(2)
        if last[close] >= new_start:  # NEW has its closing quote somewhere after
            middles[m.group(1)].append((m.start(), new_start, close))
    for head in heads:
        opened = head.group(1)
        candidates = middles[opened]
        at = bisect.bisect_left(candidates, (head.end() + 1, 0, ""))
        if at < len(candidates):
            start, new_start, close = candidates[at]
            return text[head.end():start], text[new_start:text.index(close, new_start)]
    return None


def _run(text: str) -> Instruction | None:
    """``… fix what fails`` anywhere; ``run the tests`` / ``run X``: the whole first line."""
    line = text.strip().split("\n", 1)[0].strip()
    if _re("fix_tests").search(text):
        return Instruction("fix_tests")
    if _re("run_tests").fullmatch(line):
        return Instruction("run_tests")
    m = _re("run").fullmatch(line)
    if m and (m.group(1)[0] == "`" or m.group(1).split()[0].lower() not in _NOT_COMMANDS):
        return Instruction("run", what=m.group(1).strip("`").strip())
    return None


def parse_instruction(text: str) -> Instruction | None:
    """The first instruction recognised in ``text`` (see docs/brains.md), else None."""
    return _run(text) or _edit(text)


def _edit(text: str) -> Instruction | None:
    m = _re("rename").search(text)
    if m and m.group(1) != m.group(2):
        return Instruction("rename", name=m.group(1), new=m.group(2))
    found = _replace(text)
    if found is not None:
        return Instruction("replace", old=found[0], new=found[1])
    m = _re("prints").search(text)
    if m:
        word = m.group(1).lower()
        what = "console.log" if word == "console.log" else "print" if "print" in word else "any"
        return Instruction("remove_prints", what=what)
    m = (_re("import").search(text) or _re("import_in").search(text)
         or _re("import_quoted").search(text))
    if m:
        return Instruction("add_import", what=m.group(1).strip())
    m = _re("doc").search(text)
    if m and _name(m.group(1)):
        return Instruction("docstring", name=m.group(1))
    m = _re("param").search(text)
    if m and _name(m.group(5)):
        kind_type = (m.group(2) or m.group(3) or "").strip()
        return Instruction("add_parameter", name=m.group(5), what=m.group(1),
                           type=kind_type, new=m.group(4) or "")
    m = _re("delete").search(text)
    if m and _name(m.group(1)):
        return Instruction("delete", name=m.group(1))
    if _re("explain").search(text):
        return Instruction("explain")
    return None

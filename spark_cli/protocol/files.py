"""How files travel inside a request: a path line, then a fenced block with the content
(the convention aider and most chat UIs use; :func:`render_file_block`)."""

from __future__ import annotations

import re

from spark_cli.record import record

_BACKTICK_RUN = re.compile(r"`{3,}")
_FENCE_OPEN = re.compile(r"^(`{3,})([\w+#.-]*)[ \t]*$")
_NO_FINAL_NEWLINE = " (no final newline)"


@record
class FileBlock:
    """One file as carried in a request."""

    path: str
    content: str
    lang: str = ""


def _fence_for(content: str) -> str:
    longest = max((len(m) for m in _BACKTICK_RUN.findall(content)), default=2)
    return "`" * max(3, longest + 1)


def render_file_block(block: FileBlock) -> str:
    """The text of one file block, ending with a newline.

    The backtick fence is longer than any run inside, so any file round-trips; a file without
    a final newline is marked ``(no final newline)`` after the path."""
    content = block.content
    header = block.path
    if content and not content.endswith("\n"):
        header += _NO_FINAL_NEWLINE
        content += "\n"
    fence = _fence_for(content)
    return f"{header}\n{fence}{block.lang}\n{content}{fence}\n"


def render_file_blocks(blocks: list[FileBlock]) -> str:
    """Several file blocks separated by blank lines."""
    return "\n".join(render_file_block(b) for b in blocks)


def _looks_like_path(line: str) -> bool:
    return bool(line) and " " not in line.replace(_NO_FINAL_NEWLINE, "") and (
        "/" in line or "." in line
    )


def parse_file_blocks(text: str) -> list[FileBlock]:
    """Every file block in ``text`` (other text, such as the instruction, is skipped)."""
    lines = text.split("\n")
    blocks: list[FileBlock] = []
    i = 0
    previous = ""
    while i < len(lines):
        line = lines[i]
        opened = _FENCE_OPEN.match(line)
        header = previous.strip().strip("`")
        if opened and _looks_like_path(header):
            fence, lang = opened.group(1), opened.group(2)
            end = i + 1
            while end < len(lines) and lines[end] != fence:
                end += 1
            if end == len(lines):  # an unclosed fence is not a file block
                break
            content = "\n".join(lines[i + 1 : end])
            content = content + "\n" if end > i + 1 else ""
            path = header
            if path.endswith(_NO_FINAL_NEWLINE):
                path = path[: -len(_NO_FINAL_NEWLINE)]
                content = content[:-1]
            blocks.append(FileBlock(path=path, content=content, lang=lang))
            i = end + 1
            previous = ""
            continue
        if line.strip():
            previous = line
        i += 1
    return blocks

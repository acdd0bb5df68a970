"""The rules brain's view of the files: the conversation replayed oldest first (file blocks,
``read_file`` results, and its own earlier edits applied)."""

from __future__ import annotations

from spark_cli.edits.formats.stream_parser import EditStreamParser
from spark_cli.edits.model.blocks import FileEdit
from spark_cli.engine.brains.base import CALL, OUTPUT, BrainRequest
from spark_cli.engine.brains.code.lookups import ReadWindows
from spark_cli.protocol.files import parse_file_blocks


def _apply_own_edit(files: dict[str, str], edit: FileEdit) -> None:
    if edit.kind == "delete":
        files.pop(edit.path, None)
        return
    if edit.kind == "add":
        files[edit.path] = "".join(h.replace for h in edit.hunks)
        return
    text = files.get(edit.path)
    if text is None:
        return
    for hunk in edit.hunks:
        if not hunk.search:
            text += hunk.replace
            continue
        at = text.find(hunk.search)
        if at >= 0:
            text = text[:at] + hunk.replace + text[at + len(hunk.search):]
    if edit.move_to:
        files.pop(edit.path, None)
        files[edit.move_to] = text
    else:
        files[edit.path] = text


def files_and_reads(request: BrainRequest) -> tuple[dict[str, str], ReadWindows]:
    """path -> content as of the latest turn, and the files read only in part so far."""
    files: dict[str, str] = {}
    reads = ReadWindows()
    for block in parse_file_blocks(request.instructions):
        files[block.path] = block.content
    for turn in request.conversation:
        if turn.role == CALL:
            reads.called(turn)
        elif turn.role == OUTPUT:
            whole = reads.answered(turn)
            if whole is not None:
                files[whole[0]] = whole[1]
        elif turn.role == "assistant":
            parser = EditStreamParser()
            for item in parser.feed(turn.text) + parser.close():
                if isinstance(item, FileEdit):
                    _apply_own_edit(files, item)
        elif turn.role == "user":
            for block in parse_file_blocks(turn.text):
                files[block.path] = block.content
    return files, reads

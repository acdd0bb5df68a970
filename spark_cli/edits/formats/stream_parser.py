"""The incremental edit parser: a model's answer in, prose and edit blocks out, in chunks
of any size; SEARCH/REPLACE blocks and apply_patch envelopes may mix with prose."""

from __future__ import annotations

from spark_cli.edits.formats.patch_envelope import (
    BEGIN_PATCH,
    END_PATCH,
    FILE_HEADER,
    PatchEnvelope,
)
from spark_cli.edits.formats.path_hints import FileMemory
from spark_cli.edits.formats.prose_lines import (
    HEAD,
    Fence,
    FenceLine,
    Held,
    HeredocLine,
    PathLine,
    can_hold,
    classify,
    fenced_path,
    hold_tail,
    may_be_special,
)
from spark_cli.edits.formats.search_replace import REPLACE_MARK, SearchReplaceBlock, search_marker
from spark_cli.edits.model.blocks import BlockRejected, FileEdit, ParsedItem, ProseDelta


class EditStreamParser:
    """Incremental parser for edit blocks in prose: a partial line goes out once its head
    cannot become special; lines that may open a block are held until the next one."""

    def __init__(self) -> None:
        self._parts: list[str] = []  # the partial line
        self._rel: list[str] = []  # the partial line, once released as prose
        self._started = False  # a first character was seen (a BOM before it is dropped)
        self._head = ""  # its first HEAD characters
        self._lineno = 0  # complete lines seen
        self._block: SearchReplaceBlock | PatchEnvelope | None = None
        self._pending: list[Held] = []
        self._fence: Fence | None = None
        self._files = FileMemory()  # what the prose said about files
        self._heredoc_wait: str | None = None  # terminator of the open envelope's heredoc
        self._heredoc_end: str | None = None  # terminator expected on the next line
        self._prose: list[str] = []
        self._out: list[ParsedItem] = []

    def feed(self, chunk: str) -> list[ParsedItem]:
        if not self._started and chunk:
            self._started = True
            if chunk[0] == "\ufeff":
                chunk = chunk[1:]
        start = 0
        find = chunk.find
        while (nl := find("\n", start)) >= 0:
            piece = chunk[start:nl]
            start = nl + 1
            self._lineno += 1
            if self._rel:
                self._prose.append(piece + "\n")
                self._rel.append(piece)
                self._files.line(self._rel)
                self._rel = []
                continue
            if self._parts:
                self._parts.append(piece)
                piece = "".join(self._parts)
                self._parts.clear()
                self._head = ""
            self._line(piece, piece + "\n")
        if start < len(chunk):
            rest = chunk[start:] if start else chunk
            if self._rel:
                self._prose.append(rest)
                self._rel.append(rest)
            else:
                self._parts.append(rest)
                if len(self._head) < HEAD:  # once full, the verdict below cannot change
                    head = self._head = (self._head + rest)[:HEAD]
                    if self._block is None and not may_be_special(head) and not (
                            head[-1] == "\r" and may_be_special(head[:-1])):  # CR of CRLF?
                        self._plain_started()
                        self._prose.extend(self._parts)
                        self._rel, self._parts = self._parts, []
                        self._head = ""
        return self._drain()

    def close(self) -> list[ParsedItem]:
        """End of stream: a last line without newline is read; open blocks are rejected."""
        if self._parts:
            line = "".join(self._parts)
            self._parts.clear()
            self._head = ""
            self._lineno += 1
            self._line(line, line)
        self._rel = []
        while self._block is not None:  # lines an envelope gives back may open another
            block, self._block = self._block, None
            for item in block.close(self._lineno):
                self._emit(item)
            self._read_again(block.take_returned())
        self._release_pending()
        return self._drain()

    def _emit(self, item: ParsedItem) -> None:
        self._out = [*self._drain(), item]  # after the prose before it

    def _drain(self) -> list[ParsedItem]:
        if self._prose:
            self._out.append(ProseDelta("".join(self._prose)))
            self._prose.clear()
        out, self._out = self._out, []
        return out

    def _line(self, line: str, raw: str) -> None:
        text = line[:-1] if line.endswith("\r") else line
        if self._block is None:
            self._prose_line(text, raw)
        else:
            self._block_line(self._block, text, raw)

    def _block_line(self, block: SearchReplaceBlock | PatchEnvelope, text: str, raw: str) -> None:
        items, status = block.feed(text, raw, self._lineno)
        for item in items:
            self._emit(item)
        if status == "open":
            return
        self._block = None
        if isinstance(block, PatchEnvelope):
            self._heredoc_end, self._heredoc_wait = self._heredoc_wait, None
        elif status == "closed":
            if isinstance(items[0], FileEdit):
                self._files.block_done(items[0].path)
            end = REPLACE_MARK.match(text)  # '>>>>>>> REPLACE```' closes the fence too
            fence = end.group("fence") if end else None
            if self._fence is not None and fence and self._fence.closed_by(fence):
                self._fence = None
        elif search_marker(text):
            hold_tail(self._pending, block.tail(2), self._fence)
        self._read_again(block.take_returned())
        if status == "left":
            self._line(text, raw)

    def _read_again(self, lines: list[tuple[str, int]]) -> None:
        """Read lines an envelope held back and gave up as if they came now."""
        now = self._lineno
        for raw, lineno in lines:
            self._lineno = lineno
            self._line(raw[:-1] if raw.endswith("\n") else raw, raw)
        self._lineno = now

    def _plain_started(self) -> None:
        self._release_pending()
        self._heredoc_end = None

    def _release_pending(self, count: int | None = None) -> None:
        """Pass the first `count` (default: all) held lines through as prose."""
        if count is not None:  # a held blank line only counts after the line it follows
            while count < len(self._pending) and self._pending[count].opener is None:
                count += 1
        released = self._pending[:count]
        del self._pending[:count]
        for held in released:
            opener = held.opener
            if isinstance(opener, FenceLine) and self._fence is None:
                self._fence = Fence(opener.char, opener.length, consumed=False)
            self._prose.append(held.raw)
            self._note(held.raw)
            if isinstance(opener, PathLine):  # a path line that introduced no block
                self._files.path_line(opener.path)

    def _note(self, text: str) -> None:
        """Remember a prose line: the last one may name the next block's file."""
        if text.strip():
            self._files.line([text])
        else:
            self._files.blank()

    def _prose_line(self, text: str, raw: str) -> None:
        if not may_be_special(text[:HEAD]):
            self._plain_started()
            self._prose.append(raw)
            self._files.line([text])
            return
        stripped = text.strip()
        if self._heredoc_end is not None:
            if stripped.rstrip("'\"") == self._heredoc_end:  # EOF, or EOF' of bash -lc '...'
                self._heredoc_end = None
                self._files.last = None
                return
            if stripped:
                self._heredoc_end = None
        fence = self._fence
        if fence is not None and fence.closed_by(text):
            self._release_pending()
            self._fence = None
            self._files.last = None
            if not fence.consumed:
                self._prose.append(raw)
            return
        if stripped[:1] in ("<", ">", "*") and self._marker_line(text, stripped, raw):
            return
        candidate = classify(text, self._fence)
        if candidate is not None:
            path = fenced_path(self._pending, text) if isinstance(candidate, FenceLine) else None
            if path is not None:  # a fence holding only a path line: it names the next block
                self._release_pending()
                self._fence = None
                self._prose.append(raw)
                self._files.line([path])
                return
            if not can_hold(self._pending, candidate.kind):
                self._release_pending(1)  # the oldest held line was prose after all
                self._prose_line(text, raw)
                return
            self._pending.append(Held(raw, candidate))
            return
        if not stripped and can_hold(self._pending, "blank"):  # path, blank, fence or SEARCH
            self._pending.append(Held(raw, None))
            return
        if stripped:
            self._plain_started()
        else:
            self._release_pending()
        self._prose.append(raw)
        self._note(text)

    def _marker_line(self, text: str, stripped: str, raw: str) -> bool:
        search = search_marker(text)
        if search is not None:
            self._start_search(raw, search.group(1), len(search.group(2)), search.group("path"))
            return True
        begin = BEGIN_PATCH.match(text)
        if begin:
            self._start_envelope(begin.group(1))
            return True
        if END_PATCH.match(stripped):  # a stray end (e.g. of a broken envelope): swallow it
            self._release_pending()
            self._files.last = None
            return True
        if FILE_HEADER.match(stripped):  # a file section without '*** Begin Patch'
            self._block_line(self._start_envelope(text[: len(text) - len(text.lstrip())]),
                             text, raw)
            return True
        if REPLACE_MARK.match(text):
            path = next((h.opener.path for h in self._pending
                         if isinstance(h.opener, PathLine)), None)
            self._release_pending()
            self._files.last = None
            self._emit(BlockRejected(
                f"line {self._lineno}: '>>>>>>> REPLACE' without an open '<<<<<<< SEARCH' "
                "block: write the path line, '<<<<<<< SEARCH', the exact lines to find, "
                "'=======', the new lines, then '>>>>>>> REPLACE'; nothing was applied",
                self._lineno, path, raw))
            return True
        return False

    def _start_search(self, raw: str, indent: str, marker: int, on_line: str | None) -> None:
        """Open a block; its file: the marker line's, the held lines', else the prose's."""
        if any(isinstance(h.opener, HeredocLine) for h in self._pending):
            self._release_pending()
        path: str | None = None
        for held in self._pending:
            opener = held.opener
            if isinstance(opener, PathLine):
                path = opener.path
            elif isinstance(opener, FenceLine):
                self._fence = Fence(opener.char, opener.length, consumed=True)
                path = path or opener.info_path
        self._pending.clear()
        path, weak = self._files.resolve(on_line or path)
        self._heredoc_end = None
        self._block = SearchReplaceBlock(path, self._lineno, raw, marker, indent, weak)

    def _start_envelope(self, indent: str) -> PatchEnvelope:
        for held in self._pending:
            opener = held.opener
            if isinstance(opener, FenceLine):
                self._fence = Fence(opener.char, opener.length, consumed=True)
            elif isinstance(opener, HeredocLine):
                self._heredoc_wait = opener.terminator
            else:
                self._prose.append(held.raw)
        self._pending.clear()
        self._files.forget()
        self._heredoc_end = None
        self._block = PatchEnvelope(self._lineno, indent)
        return self._block

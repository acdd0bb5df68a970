"""Adapting a replacement to the file after a loose match (every ladder step but exact),
so that only the hunk's real changes reach the file (docs/edits.md, "After a loose match")."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence

from spark_cli.edits.lang.ends import common_ends
from spark_cli.edits.locate.normalize import dominant_unit, remove_prefix, split_indent


class _Units:
    """Converts indentation the model wrote (in its unit) to the file's unit."""

    __slots__ = ("file", "model")

    def __init__(self, model: str | None, file: str | None) -> None:
        self.model, self.file = model, file

    def convert(self, extra: str) -> str:
        m, f = self.model, self.file
        if not m or not f or m == f or not extra or extra.strip(m[0]):
            return extra
        levels, rest = divmod(len(extra), len(m))
        return f * levels + " " * rest

    def relative(self, out: str, model_base: str, model: str) -> str | None:
        """The file indentation for ``model`` when ``model_base`` became ``out``."""
        if model.startswith(model_base):
            extra = self.convert(model[len(model_base):])
            tabs = len(out) - len(out.lstrip("\t"))
            if extra and not extra.strip("\t") and 0 < tabs < len(out) and not out.strip(" \t"):
                return out[:tabs] + extra + out[tabs:]  # tabs go before alignment spaces
            return out + extra
        if model.endswith(model_base):  # added in front (a tab before alignment spaces)
            return self.convert(model[:len(model) - len(model_base)]) + out
        if model_base.startswith(model) or model_base.endswith(model):
            cut = self.convert(model_base[len(model):] if model_base.startswith(model)
                               else model_base[:len(model_base) - len(model)])
            if out.endswith(cut):
                return out[:len(out) - len(cut)]
            if out.startswith(cut):
                return out[len(cut):]
            return out[:max(len(out) - len(cut), 0)]
        return None


def _levels(indent: str, unit: str) -> tuple[int, str]:
    n = 0
    while unit and indent.startswith(unit, n * len(unit)):
        n += 1
    return n, indent[n * len(unit):]


class _Frame:
    """One indentation change: ``kind`` "add" (prefix), "cut" (prefix) or "unit"."""

    __slots__ = ("kind", "shift", "text", "units")

    def __init__(self, kind: str, text: str, shift: int, units: _Units) -> None:
        self.kind, self.text, self.shift, self.units = kind, text, shift, units

    def key(self) -> tuple[str, str, int, str]:
        return self.kind, self.text, self.shift, self.units.model or ""

    def __call__(self, indent: str) -> str:
        if self.kind == "add":
            return self.text + indent
        if self.kind == "cut":
            return remove_prefix(indent, self.text)
        model, file = self.units.model or "", self.units.file or ""
        levels, rest = _levels(indent, model)
        return file * max(levels + self.shift, 0) + rest


def _frame(pairs: Sequence[tuple[str, str]], swaps: Sequence[tuple[str, str]],
           units: _Units) -> _Frame | None:
    """The indentation change at least half the ``pairs`` agree on, or None; ties go to
    moving ``swaps`` right, to the lines after the first, the model's unit, a unit change."""
    counts = Counter(pairs)
    first = pairs[0]
    best: tuple[int, int, int, bool, bool, bool] | None = None
    chosen = None
    for frame in _candidates(counts, units):
        total = sum(n for (s, fi), n in counts.items() if frame(s) == fi)
        if total * 2 < len(pairs):
            continue
        moved = sum(1 for r, fi in swaps if frame(r) == fi)
        rest = total - (1 if frame(first[0]) == first[1] else 0)
        guessed = frame.kind != "unit" or frame.units.model == units.model
        if not guessed and total < len(pairs):
            continue  # another unit than the model's lines suggest: only if it fits all
        score = (total, moved, rest, guessed, frame.kind == "unit",
                 frame.key()[:3] == ("add", "", 0))
        if best is None or score > best:
            best, chosen = score, frame
    return chosen


def _candidates(counts: dict[tuple[str, str], int], units: _Units) -> list[_Frame]:
    """Every change that turns some search indent into its file indent (once each)."""
    candidates: dict[tuple[str, str, int, str], _Frame] = {}
    f = units.file
    # the model's unit is a guess from few lines: try the usual ones as well
    conversions = [_Units(m, f) for m in dict.fromkeys((units.model, "  ", "    ", "\t"))
                   if m and f and m != f]
    for s, fi in counts:
        found = []
        if fi.endswith(s):
            found.append(_Frame("add", fi[:len(fi) - len(s)], 0, units))
        if s.endswith(fi) and len(s) > len(fi):
            found.append(_Frame("cut", s[:len(s) - len(fi)], 0, units))
        for conversion in conversions:
            (sl, srest), (fl, frest) = _levels(s, conversion.model or ""), _levels(fi, f or "")
            if srest == frest.replace("\t", " " * len(conversion.model or "")):
                found.append(_Frame("unit", "", fl - sl, conversion))
        for frame in found:
            candidates.setdefault(frame.key(), frame)
    return list(candidates.values())


def _alignment(search: Sequence[str],
               replace: Sequence[str]) -> tuple[dict[int, int], dict[int, int]]:
    """(replacement line -> search line it repeats, -> search line it changes in place)."""
    a = [s.strip() for s in search]
    b = [r.strip() for r in replace]
    head, tail = common_ends(a, b)
    same = {k: k for k in range(head)}
    same.update({len(b) - 1 - k: len(a) - 1 - k for k in range(tail)})
    swapped: dict[int, int] = {}
    mid_a, mid_b = a[head:len(a) - tail], b[head:len(b) - tail]
    matcher = difflib.SequenceMatcher(None, mid_a, mid_b, autojunk=False)
    opcodes = matcher.get_opcodes()
    if len(mid_a) == len(mid_b):  # lines changed in place: pair by position if that
        by_place = sum(x == y for x, y in zip(mid_a, mid_b, strict=True))  # pairs as many
        if by_place >= sum(i2 - i1 for tag, i1, i2, _j1, _j2 in opcodes if tag == "equal"):
            for k, (x, y) in enumerate(zip(mid_a, mid_b, strict=True)):
                (same if x == y else swapped)[head + k] = head + k
            return same, swapped
    for tag, i1, i2, j1, j2 in opcodes:
        if tag == "equal":
            for k in range(i2 - i1):
                same[head + j1 + k] = head + i1 + k
        elif tag == "replace":
            for k in range(min(i2 - i1, j2 - j1)):
                swapped[head + j1 + k] = head + i1 + k
    return same, swapped


def paired_lines(search: Sequence[str], replace: Sequence[str]) -> dict[int, int]:
    """Replacement line -> the search line it repeats or changes in place."""
    same, swapped = _alignment(search, replace)
    return {**swapped, **same}


def reconcile(search: Sequence[str], found: Sequence[str | None], replace: Sequence[str],
              file_unit: str | None = None) -> list[str]:
    """The replacement lines to write, ``found[i]`` being the file line for ``search[i]``."""
    rows = [i for i, s in enumerate(search) if s.strip() and found[i] is not None]
    if not rows:
        return list(replace)
    placing = _Placing(search, found, replace, rows, file_unit)
    return [placing.line(j, line) for j, line in enumerate(replace)]


def _guessed_units(search: Sequence[str], replace: Sequence[str], rows: list[int],
                   s_ind: dict[int, str], f_ind: dict[int, str],
                   file_unit: str | None) -> _Units:
    """The model's unit (its first line left out: models drop its indentation), the file's."""
    r_lines = [r for r in replace if r.strip()]
    if len(r_lines) > 1 and r_lines[0].strip() == search[rows[0]].strip():
        r_lines = r_lines[1:]
    model_unit = dominant_unit([s_ind[i] for i in rows[1:]] or [s_ind[rows[0]]],
                               [split_indent(r)[0] for r in r_lines])
    return _Units(model_unit,
                  file_unit if file_unit is not None else dominant_unit(f_ind.values()))


def _converting(units: _Units, frame: _Frame | None) -> _Units:
    """The units to convert: the frame's, or spaces to the file's tabs; else none."""
    if frame is not None and frame.kind == "unit":
        return frame.units
    if units.file == "\t" and units.model and not units.model.strip(" "):
        return units
    return _Units(None, None)


class _Placing:
    """One reconcile: alignment, units and frame, then each replacement line in order."""

    def __init__(self, search: Sequence[str], found: Sequence[str | None],
                 replace: Sequence[str], rows: list[int], file_unit: str | None) -> None:
        self.found = found
        self.s_ind = s_ind = {i: split_indent(search[i])[0] for i in rows}
        self.f_ind = f_ind = {i: split_indent(found[i] or "")[0] for i in rows}
        self.first = rows[0]
        units = _guessed_units(search, replace, rows, s_ind, f_ind, file_unit)
        self.same, self.swapped = same, swapped = _alignment(search, replace)
        swaps = [(split_indent(replace[j])[0], f_ind[i]) for j, i in swapped.items()
                 if i in f_ind and replace[j].strip()]
        self.frame = frame = _frame([(s_ind[i], f_ind[i]) for i in rows], swaps, units)
        self.units = _converting(units, frame)
        self.restructured = any(
            replace[j].strip() and split_indent(replace[j])[0] != split_indent(search[i])[0]
            for j, i in same.items())
        self.base: tuple[str, str] | None = None  # (file indentation, model indentation)

    def line(self, j: int, line: str) -> str:
        body = line.lstrip()
        i = self.same.get(j)
        kept = self.found[i] if i is not None else None
        if not body:
            return kept if kept is not None and not kept.strip() else line
        r = line[:len(line) - len(body)]
        if kept is None:
            i = self.swapped.get(j)
            if i is None or i not in self.s_ind or self.s_ind[i] != r:
                return self._new(r) + body
            kept = (self.found[i] or "")[:len(self.f_ind[i])] + body  # changed text, same place
        assert i is not None  # kept is found[i], or the line i it changes in place
        return self._kept(i, r) + kept[len(self.f_ind[i]):]

    def _new(self, r: str) -> str:
        """The indentation of a new or changed line the model indented ``r``."""
        if self.base is None and self.frame is None:
            self.base = (self.f_ind[self.first], self.s_ind[self.first])
        indent = _place(self.units, self.base, self.frame, r)
        self.base = (indent, r)
        return indent

    def _kept(self, i: int, r: str) -> str:
        """The indentation of a line that keeps file line ``i`` (the model wrote ``r``)."""
        s, f, frame, units = self.s_ind[i], self.f_ind[i], self.frame, self.units
        if frame is None:
            indent = f
            self.base = (f, r)
        elif frame(s) == f or i == self.first or not self.restructured:
            indent = f if r == s else (units.relative(f, s, r) or f)
            if frame(s) == f or i != self.first:
                self.base = (indent, r)
        elif r != s:  # re-indented by the model: its own change, on the file's line
            indent = units.relative(f, s, r) or _place(units, self.base, frame, r)
            self.base = (indent, r)
        else:  # mis-copied and left as it was, inside re-nested code: follow the nesting
            indent = _place(units, self.base, frame, r)
            self.base = (indent, r)
        return indent


def _place(units: _Units, base: tuple[str, str] | None, frame: _Frame | None, r: str) -> str:
    if base is not None:
        placed = units.relative(base[0], base[1], r)
        if placed is not None:
            return placed
    return frame(r) if frame is not None else r

"""Reading a ``run_command`` result (its fixed first line, docs/brains.md) and pytest's
output inside it: summary, failures, errors, and the names a rename left stale."""

from __future__ import annotations

import dataclasses
import re

from spark_cli.record import record

_EXIT = re.compile(r"exit (-?\d+) · ")
_SUMMARY = re.compile(r"=* ?((?:\d+ [a-z]+(?:, )?)+|no tests ran) in \d+(?:\.\d+)?s\b[^=]*=*")
_COUNT = re.compile(r"(\d+) (failed|errors?)")
_NAME_ERROR = re.compile(r"NameError: name '(\w+)' is not defined(?:\. Did you mean: '(\w+)'\?)?")
_IMPORT_ERROR = re.compile(r"ImportError: cannot import name '(\w+)' from '([\w.]+)'"
                           r"(?: \([^)\n]*\))?(?:\. Did you mean: '(\w+)'\?)?")
_WHERE = re.compile(r"(\S+\.py):\d+: (?:in \S+|\w*Error)$")
"""pytest's location line (before the error with ``--tb=short``, after it by default)."""
_FRAME = re.compile(r'File "([^"\n]+\.py)", line \d+')
"""A frame of a plain Python traceback (``--tb=native``)."""
_AT = re.compile(r"(\S+\.py):\d+: ")


@record
class StaleName:
    """A name that is gone: imported from ``module`` or used in ``where``, and the hint."""

    old: str
    module: str = ""
    where: str = ""
    hint: str = ""


@record
class CommandResult:
    """A ``run_command`` result: how it ended (``exit``, ``killed``, ``error`` …), its output."""

    status: str
    head: str
    output: str
    code: int | None = None

    def last_lines(self, count: int) -> list[str]:
        return [line for line in self.output.split("\n") if line.strip()][-count:]


@record
class PytestRun:
    """What pytest's output says (``summary`` empty: not pytest's output)."""

    summary: str = ""
    failed: int = 0
    errors: int = 0
    failures: tuple[str, ...] = ()
    """Its ``FAILED …`` and ``ERROR …`` lines."""
    raised: tuple[str, ...] = ()
    """Its distinct ``E   …Error: …`` lines (without the ``E``)."""
    stale: tuple[StaleName, ...] = ()


def parse_command(text: str) -> CommandResult:
    head, _, output = text.partition("\n")
    found = _EXIT.match(head)
    if found:
        return CommandResult("exit", head, output, int(found.group(1)))
    for prefix, status in (("killed", "killed"), ("stopped", "stopped"),
                           ("declined", "declined"), ("running commands is off", "off")):
        if head.startswith(prefix):
            return CommandResult(status, head, output)
    return CommandResult("error", head, output)


def _keep(stale: dict[str, StaleName], name: StaleName) -> None:
    """A name as first seen, with the first file and hint any sighting gave."""
    known = stale.setdefault(name.old, name)
    stale[name.old] = dataclasses.replace(known, module=known.module or name.module,
                                          where=known.where or name.where,
                                          hint=known.hint or name.hint)


def _stale_in(line: str, last_where: str) -> StaleName | None:
    """The stale name a line reports (``where``: the file it names, else ``last_where``)."""
    if (m := _NAME_ERROR.search(line)) is not None:
        at = _AT.match(line)  # --tb=line: "path.py:6: NameError: …"
        return StaleName(m.group(1), where=at.group(1) if at else last_where,
                         hint=m.group(2) or "")
    if (m := _IMPORT_ERROR.search(line)) is not None:
        return StaleName(m.group(1), m.group(2), hint=m.group(3) or "")
    return None


def parse_pytest(output: str) -> PytestRun:
    summary, failures, raised = "", [], []
    stale: dict[str, StaleName] = {}
    last_where = ""
    pending: list[StaleName] = []
    for row in output.split("\n"):
        line = row.strip()
        if (place := _WHERE.match(line) or _FRAME.match(line)) is not None:
            for name in pending:  # the location line after the E lines names the file
                _keep(stale, dataclasses.replace(name, where=place.group(1)))
            pending, last_where = [], place.group(1)
            continue
        if line.startswith(("FAILED ", "ERROR ")):
            failures.append(line)
        elif (found := _SUMMARY.fullmatch(line)) is not None:
            summary = found.group(0).strip("= ")
        elif row.startswith("E ") and "Error" in line and line[1:].strip() not in raised:
            raised.append(line[1:].strip())
        gone = _stale_in(line, "" if line.startswith(("FAILED ", "ERROR ")) else last_where)
        if gone is not None and row.startswith("E ") and not gone.module:
            pending.append(gone)
        elif gone is not None:
            _keep(stale, gone)
    for name in pending:  # no location line came: the one before the E line
        _keep(stale, name)
    counts = {word.rstrip("s"): int(n) for n, word in _COUNT.findall(summary)}
    return PytestRun(summary, counts.get("failed", 0), counts.get("error", 0), tuple(failures),
                     tuple(raised), tuple(stale.values()))

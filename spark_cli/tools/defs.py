"""The tools as a request declares them, and the caps their descriptions quote: plain data,
so the implementations (:mod:`.run`) load only once a call arrives."""

from __future__ import annotations

from spark_cli.tools.model import Param, ToolDef, schema

READ_FILE = "read_file"
SEARCH = "search"
LIST_FILES = "list_files"
RUN_COMMAND = "run_command"

READ_MAX_LINES = 400
READ_MAX_BYTES = 40 * 1024
SEARCH_MAX_HITS = 100
LIST_MAX_SHOWN = 300

GLOB_HELP = ("only files whose path matches this gitignore-style glob, e.g. *.py or "
             "src/**/*.ts ({a,b} braces expand; a leading ! excludes)")

READ_FILE_DESCRIPTION = (
    "Read a text file of the repository with 1-based line numbers (like `cat -n`). A file of "
    f"at most {READ_MAX_LINES} lines and {READ_MAX_BYTES // 1024} KB comes whole; for a larger "
    f"one you get up to {READ_MAX_LINES} lines from start_line and a last line saying how many "
    "lines there are. Paths are relative to the repository root."
)
READ_FILE_PARAMS = (
    Param("path", "string", "the file's path relative to the repository root", required=True),
    Param("start_line", "integer", "first line to show, 1-based (default 1)", minimum=1),
    Param("end_line", "integer",
          f"last line to show, inclusive (default: start_line + {READ_MAX_LINES - 1})",
          minimum=1),
)

SEARCH_DESCRIPTION = (
    "Search the repository's text files for a regular expression (RE2 syntax, as in ripgrep: "
    "no look-around or backreferences), honouring .gitignore. Prints `path:line:text` for each "
    f"matching line, at most {SEARCH_MAX_HITS}. A pattern that is not a valid regex is searched "
    "as fixed text."
)
SEARCH_PARAMS = (
    Param("pattern", "string", "regular expression (RE2 / ripgrep syntax) or text to find",
          required=True),
    Param("path", "string", "folder or file to search, relative to the repository root "
          "(default: the whole repository)"),
    Param("glob", "string", GLOB_HELP),
)

LIST_FILES_DESCRIPTION = (
    "List the repository's files under a folder (honouring .gitignore; vendored and build "
    f"folders only when asked), one repo-relative path per line, sorted, at most "
    f"{LIST_MAX_SHOWN}."
)
LIST_FILES_PARAMS = (
    Param("path", "string", "folder to list, relative to the repository root (default: the "
          "whole repository)"),
    Param("glob", "string", GLOB_HELP),
)

PARAMS: dict[str, tuple[Param, ...]] = {
    READ_FILE: READ_FILE_PARAMS, SEARCH: SEARCH_PARAMS, LIST_FILES: LIST_FILES_PARAMS,
}
"""Each tool's parameters, by name (what :mod:`.run` checks a call's arguments against)."""

TOOL_DEFS: tuple[ToolDef, ...] = (
    ToolDef(READ_FILE, READ_FILE_DESCRIPTION, schema(READ_FILE_PARAMS)),
    ToolDef(SEARCH, SEARCH_DESCRIPTION, schema(SEARCH_PARAMS)),
    ToolDef(LIST_FILES, LIST_FILES_DESCRIPTION, schema(LIST_FILES_PARAMS)),
)
"""What every request declares (unless tools are off), in this order."""

COMMAND_DEFAULT_TIMEOUT_S = 120
COMMAND_MAX_TIMEOUT_S = 1800
RUN_COMMAND_PARAMS = (
    Param("command", "string", "one shell command line, run in the repository root",
          required=True),
    Param("timeout_s", "number", f"seconds before it is killed (default "
          f"{COMMAND_DEFAULT_TIMEOUT_S}, at most {COMMAND_MAX_TIMEOUT_S})", minimum=1),
)
RUN_COMMAND_DEF = ToolDef(RUN_COMMAND, (
    "Run one shell command line in the repository root (as `sh -c`), only when the user "
    "asked for it: the tests, a build, a script. You get the exit status and the output "
    "(stdout and stderr interleaved). The user may be asked first and may decline; it may "
    "run in a sandbox (no network, writes only inside the repository)."),
    schema(RUN_COMMAND_PARAMS))
"""Declared when the user lets the model run commands (``--commands``)."""

"""A tool's arguments as the model wrote them: JSON checked against the parameters."""

from __future__ import annotations

import pytest

from spark_cli.tools.model import Param, ToolFailure, parse_arguments, schema

PARAMS = (
    Param("path", "string", "the file", required=True),
    Param("start_line", "integer", "first line", minimum=1),
)


def test_schema_is_a_closed_object() -> None:
    assert schema(PARAMS) == {
        "type": "object",
        "properties": {
            "path": {"type": "string", "description": "the file"},
            "start_line": {"type": "integer", "description": "first line", "minimum": 1},
        },
        "required": ["path"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize(("raw", "expected"), [
    ('{"path": "a.py"}', {"path": "a.py"}),
    ('{"path": "a.py", "start_line": 3}', {"path": "a.py", "start_line": 3}),
    ('{"path": "a.py", "start_line": 3.0}', {"path": "a.py", "start_line": 3}),
    ('{"path": "a.py", "start_line": null}', {"path": "a.py"}),
    ('  {"path": ""}  ', {"path": ""}),
])
def test_good_arguments(raw: str, expected: dict[str, object]) -> None:
    assert parse_arguments("read_file", raw, PARAMS) == expected


@pytest.mark.parametrize(("raw", "message", "short"), [
    ('{"path": "a.py"', "read_file: arguments are not valid JSON (Expecting ',' delimiter at "
     'line 1 column 16); send one JSON object such as {"path": "..."}', "arguments not JSON"),
    ("", "read_file: missing required argument 'path' (the file)", "missing path"),
    ('["a.py"]', 'read_file: arguments must be a JSON object such as {"path": "..."}, not an '
     "array", "arguments not an object"),
    ('"a.py"', 'read_file: arguments must be a JSON object such as {"path": "..."}, not a '
     "string", "arguments not an object"),
    ("{}", "read_file: missing required argument 'path' (the file)", "missing path"),
    ('{"path": 3}', "read_file: path must be a string, not a number (3)", "bad path"),
    ('{"path": "a", "start_line": "10"}', 'read_file: start_line must be an integer, not a '
     'string ("10")', "bad start_line"),
    ('{"path": "a", "start_line": true}', "read_file: start_line must be an integer, not a "
     "boolean (true)", "bad start_line"),
    ('{"path": "a", "start_line": 0}', "read_file: start_line must be at least 1, not 0",
     "bad start_line"),
    ('{"path": "a", "lines": 3}', "read_file: unknown argument 'lines'; read_file takes path, "
     "start_line", "unknown argument"),
    ("[" * 100_000, "read_file: arguments are nested too deeply; send one flat JSON object such "
     'as {"path": "..."}', "arguments not JSON"),
])
def test_bad_arguments(raw: str, message: str, short: str) -> None:
    with pytest.raises(ToolFailure) as info:
        parse_arguments("read_file", raw, PARAMS)
    assert (info.value.message, info.value.short) == (message, short)

"""Names and schemas as the wire takes them: safe names, objects at the top, refs inlined."""

from __future__ import annotations

import re

from spark_cli.mcp.schema import wire_name, wire_schema


def test_names_are_wire_safe_and_unique_when_cut() -> None:
    assert wire_name("time", "get_current_time") == "mcp__time__get_current_time"
    assert wire_name("docs", "search.v2 (beta)") == "mcp__docs__search_v2__beta_"
    long_a, long_b = wire_name("s", "x" * 80 + "a"), wire_name("s", "x" * 80 + "b")
    assert len(long_a) == 64 and long_a != long_b
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", long_a)


def test_refs_are_inlined_and_a_recursive_one_becomes_any() -> None:
    schema = {"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
              "properties": {"where": {"$ref": "#/$defs/Place"},
                             "tree": {"$ref": "#/$defs/Node"},
                             "out": {"$ref": "https://other/schema"}},
              "$defs": {"Place": {"type": "object", "properties": {"city": {"type": "string"}}},
                        "Node": {"type": "object",
                                 "properties": {"child": {"$ref": "#/$defs/Node"}}}}}
    out, notes = wire_schema(schema)
    assert out is not None
    assert out["properties"]["where"] == {"type": "object",
                                          "properties": {"city": {"type": "string"}}}
    assert out["properties"]["tree"]["properties"]["child"] == {}
    assert out["properties"]["out"] == {}
    assert "$defs" not in out and "$schema" not in out
    assert notes == ["$ref #/$defs/Node not kept (any value)",
                     "$ref https://other/schema not kept (any value)"]


def test_one_of_reads_as_any_of_and_enums_stay() -> None:
    out, notes = wire_schema({"type": "object", "properties": {
        "x": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "k": {"enum": ["oneOf", "$ref"]}}})
    assert out is not None
    assert out["properties"]["x"] == {"anyOf": [{"type": "string"}, {"type": "integer"}]}
    assert out["properties"]["k"] == {"enum": ["oneOf", "$ref"]}
    assert notes == ["oneOf read as anyOf"]


def test_the_top_level_must_be_an_object() -> None:
    assert wire_schema({"properties": {"a": {}}}) == (
        {"properties": {"a": {}}, "type": "object"}, [])
    assert wire_schema({"type": "object"}) == ({"type": "object", "properties": {}}, [])
    assert wire_schema({"type": "string"}) == (None, ["its input is 'string', not an object: "
                                                      "left out"])
    assert wire_schema([1]) == (None, ["its input schema is not an object: left out"])

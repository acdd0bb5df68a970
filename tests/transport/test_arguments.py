"""A call's arguments joined from streamed pieces, never parsed."""

from __future__ import annotations

import json

from spark_cli.transport.arguments import join_arguments


def test_pieces_split_inside_escapes_join_to_the_text_the_model_wrote() -> None:
    pieces = ['{"path": "caf\\u00', 'e9.py", "q": "say \\', '"hi\\""}']
    joined = join_arguments(pieces)
    assert joined == '{"path": "caf\\u00e9.py", "q": "say \\"hi\\""}'
    assert json.loads(joined) == {"path": "café.py", "q": 'say "hi"'}


def test_the_halves_of_one_character_become_that_character() -> None:
    halves = [json.loads('"\\ud83d"'), json.loads('"\\ude00 ok"')]
    assert join_arguments(halves) == "😀 ok"
    assert join_arguments([json.loads('"x\\ud83d"')]) == "x\ufffd"  # a half alone


def test_invalid_json_is_kept_as_it_was_written() -> None:
    assert join_arguments(['{"path": ', "oops"]) == '{"path": oops'
    assert join_arguments([]) == ""

"""The script:PATH brain: in order, by match, exhausted, and bad files at load time."""

from __future__ import annotations

import pytest

from spark_cli.engine.brains.base import BrainRequest, BrainTurn
from spark_cli.engine.brains.script import ScriptBrain, ScriptError


def _ask(brain: ScriptBrain, prompt: str) -> str:
    req = BrainRequest("spark-script", "", (BrainTurn("user", prompt),), "search_replace")
    return "".join(brain.answer(req))


SCRIPT = '''
[[entries]]
match = "rename"
answer = "renamed!\\n"

[[entries]]
answer = "first\\nline two\\n"

[[entries]]
match = "^add .* to \\\\w+$"
answer = "added"

[[entries]]
answer = "second"
'''


def test_order_match_and_exhausted(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCRIPT)
    brain = ScriptBrain(path)
    assert _ask(brain, "hello") == "first\nline two\n"
    assert _ask(brain, "please rename x") == "renamed!\n"
    assert _ask(brain, "add x to foo") == "added"  # a regex
    assert _ask(brain, "rename again") == "renamed!\n"  # match entries are reusable
    assert _ask(brain, "hi") == "second"
    exhausted = _ask(brain, "more?")
    assert "has no more answers" in exhausted and "2 in-order entries" in exhausted


def test_answer_streams_by_line(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(SCRIPT)
    req = BrainRequest("m", "", (BrainTurn("user", "x"),), "search_replace")
    assert list(ScriptBrain(path).answer(req)) == ["first\n", "line two\n"]


def test_json_lines(tmp_path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text('{"answer": "one"}\n\n{"match": "(", "answer": "paren"}\n')
    brain = ScriptBrain(path)
    assert _ask(brain, "f(") == "paren"  # not a regex: a plain substring
    assert _ask(brain, "x") == "one"


@pytest.mark.parametrize(("name", "text", "message"), [
    ("bad.toml", "[[entries]\nanswer = 1", "not valid TOML"),
    ("bad.toml", "[[entries]]\nmatch = 'x'\n", "`answer` must be a string"),
    ("bad.toml", "[[entries]]\nanswer = 'x'\nwhen = 'y'\n", "unknown key(s) when"),
    ("bad.toml", "title = 'x'\n", "unknown top-level key(s) title"),
    ("bad.toml", "", "no entries"),
    ("bad.toml", "[[entries]]\nanswer = 'x'\nmatch = ''\n", "non-empty string"),
    ("bad.jsonl", '{"answer": "x"}\nnot json\n', "bad.jsonl:2: not valid JSON"),
    ("bad.jsonl", '["x"]\n', "expected a table/object"),
])
def test_bad_files_fail_at_load(tmp_path, name, text, message) -> None:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ScriptError) as info:
        ScriptBrain(path)
    assert message in str(info.value) and str(path) in str(info.value)


def test_missing_and_unreadable(tmp_path) -> None:
    with pytest.raises(ScriptError, match="script file not found"):
        ScriptBrain(tmp_path / "nope.toml")
    (tmp_path / "bin.toml").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ScriptError, match="cannot read script file"):
        ScriptBrain(tmp_path / "bin.toml")


def test_one_in_order_entry_reads_right(tmp_path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[[entries]]\nanswer = "only"\n')
    brain = ScriptBrain(path)
    assert _ask(brain, "x") == "only"
    assert "its 1 in-order entry has been played and no" in _ask(brain, "y")


def test_the_engine_reloads_a_script_when_its_file_changes(tmp_path) -> None:
    import os

    from spark_cli.engine.brains.registry import RegistryBrains

    path = tmp_path / "s.toml"
    path.write_text('[[entries]]\nmatch = "x"\nanswer = "old"\n')
    factory = RegistryBrains(f"script:{path}")
    assert _ask(factory("spark-script"), "x") == "old"
    assert _ask(factory("any-model"), "x") == "old"
    path.write_text('[[entries]]\nmatch = "x"\nanswer = "new answer"\n')
    stat = path.stat()
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    assert _ask(factory("spark-script"), "x") == "new answer"
    assert _ask(factory("any-model"), "x") == "new answer"

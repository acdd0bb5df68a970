"""run_tool: the declarations, unknown tools, cancel, and no input that raises or leaks."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from spark_cli.tools import TOOL_DEFS, ToolDef, ToolResult, run
from spark_cli.tools.run import run_tool

SECRETS = ("OUTSIDE-SECRET", "GIT-SECRET", "SPARK-SECRET", "IGNORED-SECRET")


def test_the_three_declarations() -> None:
    assert [d.name for d in TOOL_DEFS] == ["read_file", "search", "list_files"]
    for definition in TOOL_DEFS:
        assert isinstance(definition, ToolDef) and definition.description
        params = definition.parameters
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
    required = {d.name: d.parameters["required"] for d in TOOL_DEFS}
    assert required == {"read_file": ["path"], "search": ["pattern"], "list_files": []}


def test_an_unknown_tool_is_a_result(tmp_path: Path) -> None:
    assert run_tool(tmp_path, "write_file", "{}") == ToolResult(
        False, "unknown tool 'write_file'; the tools are read_file, search, list_files",
        "error: unknown tool")


@pytest.mark.parametrize(("name", "arguments"), [
    ("read_file", '{"path": "a.py"}'), ("search", '{"pattern": "x"}'), ("list_files", "{}")])
def test_cancel_set_before_the_call(tmp_path: Path, name: str, arguments: str) -> None:
    (tmp_path / "a.py").write_text("x\n")
    cancel = threading.Event()
    cancel.set()
    got = run_tool(tmp_path, name, arguments, cancel=cancel)
    assert got == ToolResult(False, "cancelled: the user interrupted this call", "cancelled")


class _SetAfter(threading.Event):
    """An event that reads as set from its ``n``-th look on: Esc pressed mid-call."""

    def __init__(self, n: int) -> None:
        super().__init__()
        self.looks = 0
        self.n = n

    def is_set(self) -> bool:
        self.looks += 1
        return self.looks >= self.n


def test_cancel_mid_search_stops_between_files(make_repo) -> None:
    root = make_repo({f"d{i}/f{j}.py": "hit\n" for i in range(5) for j in range(20)})
    cancel = _SetAfter(12)
    got = run_tool(root, "search", '{"pattern": "hit"}', cancel=cancel)
    assert got.summary == "cancelled" and cancel.looks == 12


def test_cancel_mid_listing(make_repo) -> None:
    root = make_repo({f"d{i}/f.py": "" for i in range(10)})
    got = run_tool(root, "list_files", "{}", cancel=_SetAfter(4))
    assert got.summary == "cancelled"


def test_an_unforeseen_error_is_a_result(tmp_path: Path, monkeypatch) -> None:
    def broken(*_args: object) -> ToolResult:
        raise RuntimeError("boom\nsecond line")

    monkeypatch.setitem(run._RUNS, "list_files", broken)
    assert run_tool(tmp_path, "list_files", "{}") == ToolResult(
        False, "list_files failed: RuntimeError: boom second line", "error: internal")


@pytest.fixture(scope="module")
def guarded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("guarded")
    outside = base / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE-SECRET\n")
    root = base / "repo"
    for rel, text in {"src/app.py": "def app():\n    return 1\n", "notes.md": "app notes\n",
                      ".gitignore": "*.env\n", "keys.env": "IGNORED-SECRET\n",
                      ".git/config": "GIT-SECRET\n", ".spark/undo": "SPARK-SECRET\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    (root / "out_file").symlink_to(outside / "secret.txt")
    (root / "out_dir").symlink_to(outside)
    (root / "in_git").symlink_to(root / ".git")
    (root / "in_env").symlink_to(root / "keys.env")
    return root


_PARTS = st.sampled_from(["..", ".", "", "src", "app.py", "out_file", "out_dir", "secret.txt",
                          "in_git", "config", ".git", ".spark", "undo", "keys.env", "in_env",
                          "outside", "repo", "notes.md", "~", "\\", "*"])


@st.composite
def _paths(draw: st.DrawFn) -> str:
    path = "/".join(draw(st.lists(_PARTS, max_size=5)))
    return draw(st.sampled_from(["", "/", "./"])) + path


_ODD = st.one_of(st.text(max_size=12), st.integers(-3, 10**12), st.none(), st.booleans(),
                 st.lists(st.integers(), max_size=2))
_FIELDS = {
    "path": st.one_of(_paths(), _ODD, st.sampled_from([
        "src/app.py", "notes.md", "src", ".", "keys.env", "in_env", "out_file", "out_dir",
        "out_dir/secret.txt", "in_git/config", ".git/config", ".spark/undo", "../outside"])),
    "start_line": st.one_of(st.integers(1, 5), st.integers(1, 5), _ODD),
    "end_line": st.one_of(st.integers(1, 5), _ODD),
    "pattern": st.one_of(st.sampled_from(["SECRET", ".", "S.*T", "(a+)+$", "[", "app", "^def",
                                          "\\w+", "(?<=x)y", "\n"]), _ODD),
    "glob": st.one_of(st.sampled_from(["*.env", "**", "!*.py", "*.{py,md}", "[", "in_*/**"]),
                      _ODD),
}
_TAKES = {"read_file": ("path", "start_line", "end_line"), "search": ("pattern", "path", "glob"),
          "list_files": ("path", "glob")}


@st.composite
def _calls(draw: st.DrawFn) -> tuple[str, str]:
    """Mostly well-formed calls of the three tools with hostile paths; sometimes junk."""
    if draw(st.integers(0, 9)) == 0:
        return draw(st.text(max_size=10)), draw(st.text(max_size=40))
    name = draw(st.sampled_from(sorted(_TAKES)))
    required, *optional = _TAKES[name] if name != "list_files" else ("", *_TAKES[name])
    keys = [required] if required and draw(st.integers(0, 9)) else []
    keys += draw(st.lists(st.sampled_from(optional), unique=True))
    args = {key: draw(_FIELDS[key]) for key in keys}
    if draw(st.integers(0, 9)) == 0:
        args[draw(st.sampled_from([*sorted(_FIELDS), "other"]))] = draw(_ODD)
    text = json.dumps(args)
    if draw(st.integers(0, 9)) == 0:
        text = text[:draw(st.integers(0, len(text)))]
    return name, text


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_calls(), st.booleans())
def test_no_input_raises_or_shows_what_is_outside(guarded: Path, call: tuple[str, str],
                                                  absolute: bool) -> None:
    name, arguments = call
    if absolute:  # absolute spellings of the same paths, inside and outside the root
        arguments = arguments.replace('"/', f'"{guarded}/').replace('"~', f'"{guarded.parent}')
    got = run_tool(guarded, name, arguments)
    assert isinstance(got, ToolResult) and isinstance(got.output, str)
    assert "\n" not in got.summary
    for secret in SECRETS:
        assert secret not in got.output and secret not in got.summary
    if not got.ok:
        assert got.summary.startswith("error:") and "\n" not in got.output


@pytest.mark.parametrize("name", ["read_file", "search", "list_files"])
def test_naming_a_path_does_not_open_the_way_out(guarded: Path, name: str) -> None:
    outside = guarded.parent / "outside"
    readable = ("../outside/secret.txt", "out_file", "out_dir", "out_dir/secret.txt",
                str(outside / "secret.txt"), str(outside), ".git/config", "in_git/config",
                ".spark/undo", "..", "/")
    for path in (*readable, ".", ""):
        args = {"path": path}
        if name == "search":
            args["pattern"] = "SECRET"
        got = run_tool(guarded, name, json.dumps(args), readable=readable)
        for secret in ("OUTSIDE-SECRET", "GIT-SECRET", "SPARK-SECRET"):
            assert secret not in got.output, (name, path)

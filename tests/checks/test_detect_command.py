"""Test-command detection per ecosystem, on tiny trees."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_cli.checks.detect import detect_test_command


def _tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.mark.parametrize(("files", "source"), [
    ({"pyproject.toml": "[tool.pytest.ini_options]\naddopts = '-q'\n"}, "pyproject.toml"),
    ({"pytest.ini": "[pytest]\n"}, "pytest.ini"),
    ({"setup.cfg": "[metadata]\nname = x\n[tool:pytest]\n"}, "setup.cfg"),
    ({"tox.ini": "[tox]\n[pytest]\naddopts = -q\n"}, "tox.ini"),
    ({"tests/unit/test_a.py": "def test_a(): pass\n"}, "tests/"),
    ({"test/a_test.py": "def test_a(): pass\n"}, "test/"),
])
def test_pytest_markers(tmp_path: Path, files: dict[str, str], source: str) -> None:
    command = detect_test_command(_tree(tmp_path, files))
    assert command is not None and command.source == source
    assert "pytest" in command.display and not command.shell


def test_project_venv_python_is_preferred(tmp_path: Path) -> None:
    _tree(tmp_path, {"pytest.ini": "[pytest]\n", ".venv/bin/python": ""})
    command = detect_test_command(tmp_path)
    assert command is not None
    assert command.argv == (str(tmp_path / ".venv/bin/python"), "-m", "pytest")


def test_pyproject_without_pytest_and_tests_without_test_files(tmp_path: Path) -> None:
    _tree(tmp_path, {"pyproject.toml": "[project]\nname = 'x'\n", "tests/helpers.py": ""})
    assert detect_test_command(tmp_path) is None


def test_broken_pyproject_does_not_crash(tmp_path: Path) -> None:
    _tree(tmp_path, {"pyproject.toml": "[tool.pytest\n", "Cargo.toml": "[package]\n"})
    command = detect_test_command(tmp_path)
    assert command is not None and command.argv == ("cargo", "test")


def test_npm_test_script(tmp_path: Path) -> None:
    _tree(tmp_path, {"package.json": json.dumps({"scripts": {"test": "jest"}})})
    command = detect_test_command(tmp_path)
    assert command is not None and command.argv == ("npm", "test")
    assert command.source == "package.json"


@pytest.mark.parametrize("package", [
    {"scripts": {"test": "echo \"Error: no test specified\" && exit 1"}},
    {"scripts": {"build": "tsc"}},
    {"name": "x"},
])
def test_npm_without_a_real_test_script_is_skipped(tmp_path: Path, package: object) -> None:
    _tree(tmp_path, {"package.json": json.dumps(package)})
    assert detect_test_command(tmp_path) is None


def test_npm_invalid_json_is_skipped(tmp_path: Path) -> None:
    _tree(tmp_path, {"package.json": "{not json", "go.mod": "module x\n"})
    command = detect_test_command(tmp_path)
    assert command is not None and command.argv == ("go", "test", "./...")


def test_cargo_and_go(tmp_path: Path) -> None:
    assert detect_test_command(_tree(tmp_path / "r", {"Cargo.toml": ""})).argv == (  # type: ignore[union-attr]
        "cargo", "test")
    assert detect_test_command(_tree(tmp_path / "g", {"go.mod": ""})).argv == (  # type: ignore[union-attr]
        "go", "test", "./...")


@pytest.mark.parametrize(("makefile", "found"), [
    ("all:\n\tcc x.c\ntest: all\n\t./run\n", True),
    (".PHONY: check test\ncheck test:\n\t./run\n", True),
    ("test := 1\nall:\n\techo $(test)\n", False),
    ("testing:\n\t./run\n", False),
])
def test_make_test_target(tmp_path: Path, makefile: str, found: bool) -> None:
    command = detect_test_command(_tree(tmp_path, {"Makefile": makefile}))
    assert (command is not None and command.argv == ("make", "test")) is found


def test_pytest_wins_over_make(tmp_path: Path) -> None:
    _tree(tmp_path, {"Makefile": "test:\n\tpytest\n", "pytest.ini": "[pytest]\n"})
    command = detect_test_command(tmp_path)
    assert command is not None and command.source == "pytest.ini"


def test_configured_command_wins_and_runs_in_a_shell(tmp_path: Path) -> None:
    _tree(tmp_path, {"pytest.ini": "[pytest]\n"})
    command = detect_test_command(tmp_path, "  make check && echo ok ")
    assert command is not None and command.shell and command.source == "configured"
    assert command.display == "make check && echo ok" == str(command)


def test_nothing_detected(tmp_path: Path) -> None:
    _tree(tmp_path, {"README.md": "hi\n"})
    assert detect_test_command(tmp_path) is None
    assert detect_test_command(tmp_path, "   ") is None


def test_pytest_on_path_runs_through_its_own_interpreter(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    script = bin_dir / "pytest"
    script.write_text(f"#!{sys.executable}\nimport pytest\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(bin_dir))
    repo = _tree(tmp_path / "repo", {"pytest.ini": "[pytest]\n"})
    command = detect_test_command(repo)
    assert command is not None and command.argv == (sys.executable, "-m", "pytest")
    (bin_dir / "python3").symlink_to(sys.executable)
    script.write_text("#!/usr/bin/env python3\n")
    command = detect_test_command(repo)
    assert command is not None and command.argv == (str(bin_dir / "python3"), "-m", "pytest")
    script.write_text("#!/usr/bin/env bash\nexec real-pytest\n")  # a pyenv-style shim
    command = detect_test_command(repo)
    assert command is not None and command.argv == ("pytest",)

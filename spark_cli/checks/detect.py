"""Which command runs this project's tests: the configured one (through the shell), else one
detected from the repo root's files without executing anything."""

from __future__ import annotations

import json
import re
import shutil
import sys
import tomllib
from pathlib import Path

from spark_cli.record import record

# a rule line naming ``test`` among its targets (not a ``test := value`` assignment)
_MAKE_TEST = re.compile(r"^(?:[^\s:#=][^:#=\n]*[ \t])?test(?:[ \t][^:#=\n]*)?:(?!=)", re.MULTILINE)
_SECTION = {"setup.cfg": "[tool:pytest]", "tox.ini": "[pytest]"}
_NPM_PLACEHOLDER = "no test specified"
_MAX_SCAN = 2000  # files looked at under tests/ before giving up


@record
class TestCommand:
    """A command to run from the repo root."""

    __test__ = False  # not a pytest test class

    argv: tuple[str, ...]
    """The program and its arguments (for a configured command: the shell line alone)."""
    source: str
    """Why this command: ``configured`` or the file that gave it away (``pyproject.toml``)."""
    shell: bool = False
    """Run ``argv[0]`` through the shell (configured commands)."""

    @property
    def display(self) -> str:
        return self.argv[0] if self.shell else " ".join(self.argv)

    def __str__(self) -> str:
        return self.display


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _pytest_marker(root: Path) -> str | None:
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            data = tomllib.loads(_read(pyproject) or "")
        except tomllib.TOMLDecodeError:
            data = {}
        tool = data.get("tool")
        if isinstance(tool, dict) and isinstance(tool.get("pytest"), dict):
            return "pyproject.toml"
    if (root / "pytest.ini").is_file():
        return "pytest.ini"
    for name, section in _SECTION.items():
        text = _read(root / name) if (root / name).is_file() else None
        if text and section in text:
            return name
    for folder in ("tests", "test"):
        base = root / folder
        if base.is_dir() and _has_python_tests(base):
            return f"{folder}/"
    return None


def _has_python_tests(base: Path) -> bool:
    for count, path in enumerate(base.rglob("*.py")):
        if count >= _MAX_SCAN:
            return False
        if path.name.startswith("test_") or path.name.endswith("_test.py"):
            return True
    return False


def _pytest_argv(root: Path) -> tuple[str, ...]:
    for venv in (".venv", "venv"):
        python = root / venv / "bin" / "python"
        if python.is_file():
            return (str(python), "-m", "pytest")
    script = shutil.which("pytest")
    if script:
        interpreter = _shebang_python(Path(script))
        return (interpreter, "-m", "pytest") if interpreter else ("pytest",)
    return (sys.executable, "-m", "pytest")


def _shebang_python(script: Path) -> str | None:
    """The interpreter a ``pytest`` entry-point script runs on (``#!/path/python``)."""
    try:
        with script.open("rb") as handle:
            first = handle.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    parts = first[2:].decode("utf-8", "replace").split()
    if len(parts) == 2 and Path(parts[0]).name == "env":  # #!/usr/bin/env python3
        parts = [shutil.which(parts[1]) or ""]
    if len(parts) == 1 and "python" in Path(parts[0]).name and Path(parts[0]).is_file():
        return parts[0]
    return None  # e.g. a pyenv shim (a shell script): run `pytest` itself


def _npm_has_test(root: Path) -> bool:
    text = _read(root / "package.json")
    if not text:
        return False
    try:
        data = json.loads(text)
    except json.JSONDecodeError:
        return False
    scripts = data.get("scripts") if isinstance(data, dict) else None
    script = scripts.get("test") if isinstance(scripts, dict) else None
    return isinstance(script, str) and bool(script.strip()) and _NPM_PLACEHOLDER not in script


def _makefile(root: Path) -> str | None:
    for name in ("GNUmakefile", "makefile", "Makefile"):
        if (root / name).is_file() and _MAKE_TEST.search(_read(root / name) or ""):
            return name
    return None


def detect_test_command(root: Path, configured: str | None = None) -> TestCommand | None:
    """The configured command, else the first detected: pytest, npm, cargo, go, make; else None.

    pytest always runs as ``PYTHON -m pytest``: the project's venv, else the interpreter of the
    ``pytest`` on PATH, else spark's own."""
    if configured and configured.strip():
        return TestCommand((configured.strip(),), "configured", shell=True)
    root = Path(root)
    marker = _pytest_marker(root)
    if marker is not None:
        return TestCommand(_pytest_argv(root), marker)
    if (root / "package.json").is_file() and _npm_has_test(root):
        return TestCommand(("npm", "test"), "package.json")
    if (root / "Cargo.toml").is_file():
        return TestCommand(("cargo", "test"), "Cargo.toml")
    if (root / "go.mod").is_file():
        return TestCommand(("go", "test", "./..."), "go.mod")
    make = _makefile(root)
    if make is not None:
        return TestCommand(("make", "test"), make)
    return None

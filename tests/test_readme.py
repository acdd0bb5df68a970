"""README tells the truth: its layout block names every package (two levels deep) and the
top-level modules, nothing that is not there; its command table names every command of
`spark --help` and every benchmark of `spark bench --help`, and each flag it names is in
that command's `--help`; its docs list names every page in docs/. Every `spark bench NAME`
that the package or the docs name is a benchmark that exists, and every module the README
and docs/ name is there (docs/benchmarks.md records measurements, removed pieces too)."""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import spark_cli

PACKAGE = Path(spark_cli.__file__).parent
README = PACKAGE.parent / "README.md"


def _section(title: str) -> str:
    text = README.read_text()
    start = text.index(f"## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end != -1 else len(text)]


def _layout() -> tuple[set[str], set[str]]:
    """(package paths such as ``session/context``, top-level module files) in the layout."""
    block = _section("Layout").split("```")[1]
    packages: set[str] = set()
    modules: set[str] = set()
    parent = ""
    for line in block.splitlines():
        found = re.match(r"^( +)([\w.]+)(/)?(\s|$)", line)
        if found is None:
            continue
        indent, name, slash = len(found.group(1)), found.group(2), found.group(3)
        if indent == 2 and slash:
            parent = name
            packages.add(name)
        elif indent == 4 and slash:
            packages.add(f"{parent}/{name}")
        elif indent == 2 and name.endswith(".py"):
            modules.add(name)
    return packages, modules


def _help(*args: str) -> str:
    return subprocess.run([sys.executable, "-m", "spark_cli", *args, "--help"],
                          capture_output=True, text=True, check=True,
                          env={"PATH": "/usr/bin:/bin", "COLUMNS": "200"}).stdout


def _help_commands(*args: str) -> set[str]:
    commands = _help(*args).split("Commands:", 1)[1]
    return {line.split()[0] for line in commands.splitlines() if line.strip()}


def _table_rows() -> list[tuple[list[str], str]]:
    """(the command's words after ``spark``, the whole row) for each row of the table."""
    rows = []
    for row in re.findall(r"^\| `[^`]*` \|.*$", _section("What works today"), re.M):
        cell = row.split("`")[1].replace("\\|", "|").split("spark", 1)[1]
        words = []
        for word in cell.split():
            if not re.fullmatch(r"[a-z]+", word):
                break
            words.append(word)
        rows.append((words, row))
    return rows


def _table_commands() -> tuple[set[str], set[str]]:
    """(commands in the table's first column, benchmarks in its `spark bench a|b` row)."""
    commands: set[str] = set()
    benches: set[str] = set()
    for cell in re.findall(r"^\| `([^`]*)` \|", _section("What works today"), re.M):
        words = cell.replace("\\|", "|").split("spark", 1)[1].split()
        if not words:
            continue  # `spark`: the interactive session
        commands.add(words[0])
        if words[0] == "bench":
            benches.update(words[1].split("|"))
    return commands, benches


def test_the_layout_names_every_package_and_nothing_else() -> None:
    packages = {p.parent.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("__init__.py")
                if len(p.parent.relative_to(PACKAGE).parts) in (1, 2)}
    modules = {p.name for p in PACKAGE.glob("*.py")} - {"__init__.py", "__main__.py"}
    assert _layout() == (packages, modules)


def test_the_command_table_matches_spark_help() -> None:
    commands, benches = _table_commands()
    assert commands == _help_commands()
    assert benches == _help_commands("bench")


def test_every_flag_the_table_names_is_in_its_command_help() -> None:
    for words, row in _table_rows():
        flags = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", row))
        said = set(re.findall(r"(?<![\w-])--[a-z][\w-]*", _help(*words)))
        assert flags <= said, (words, flags - said)


def test_the_docs_list_names_every_page_in_docs() -> None:
    listed = set(re.findall(r"^- \[docs/([\w.-]+\.md)\]", _section("Docs"), re.M))
    assert listed == {p.name for p in (PACKAGE.parent / "docs").glob("*.md")}


def test_every_benchmark_the_package_and_docs_name_exists() -> None:
    texts = [p.read_text() for p in PACKAGE.rglob("*.py")]
    texts += [p.read_text() for p in (PACKAGE.parent / "docs").glob("*.md")]
    named = {name for text in texts for name in re.findall(r"spark bench ([a-z][a-z-]*)", text)}
    assert named <= _help_commands("bench")


_TOP = "|".join(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())


def _exists(dotted: str) -> bool:
    """``spark_cli.<dotted>`` is a module, or an attribute of one."""
    parts = dotted.split(".")
    for keep in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(["spark_cli", *parts[:keep]]))
        except ImportError:
            continue
        for name in parts[keep:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_the_docs_name_only_modules_that_exist() -> None:
    pages = [README, *(p for p in (PACKAGE.parent / "docs").glob("*.md")
                       if p.name != "benchmarks.md")]
    missing = []
    for page in pages:
        text = page.read_text()
        dotted = re.findall(r"spark_cli((?:\.[a-z_]\w*)+)", text)
        paths = re.findall(rf"`((?:{_TOP})(?:/\w+)*/\w+)\.py`", text)
        for name in dotted:
            if not _exists(name.strip(".")):
                missing.append(f"{page.name}: spark_cli{name}")
        for path in paths:
            if not PACKAGE.joinpath(path + ".py").exists():
                missing.append(f"{page.name}: {path}.py")
    assert missing == []


def test_readme_says_what_make_test_runs() -> None:
    makefile = (PACKAGE.parent / "Makefile").read_text().split("\ntest:", 1)[1].split("\n\n")[0]
    line = next(line for line in README.read_text().splitlines()
                if line.startswith("make test"))
    for tool, said in (("ruff", "ruff"), ("lint-imports", "import-linter"), ("mypy", "mypy"),
                       ("pytest", "pytest")):
        assert tool in makefile and said in line, tool

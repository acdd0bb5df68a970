"""defer: a module registered now, imported at the first read of one of its attributes."""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from spark_cli.lazy_modules import defer


@pytest.fixture
def package(tmp_path: Path) -> Iterator[str]:
    """A fresh package ``NAME`` with a module ``NAME.heavy`` that counts its imports in
    ``NAME.LOADS``."""
    name = f"lazy_pkg_{uuid.uuid4().hex[:8]}"
    root = tmp_path / name
    root.mkdir()
    (root / "__init__.py").write_text("LOADS = []\n")
    (root / "heavy.py").write_text(f"import {name}\n{name}.LOADS.append(1)\nVALUE = 42\n"
                                   "def double(x):\n    return 2 * x\n")
    sys.path.insert(0, str(tmp_path))
    try:
        yield name
    finally:
        sys.path.remove(str(tmp_path))
        for module in [m for m in sys.modules if m == name or m.startswith(name + ".")]:
            del sys.modules[module]


def _loads(name: str) -> list[int]:
    loads: list[int] = sys.modules[name].LOADS
    return loads


def test_importing_a_deferred_module_runs_nothing_reading_it_imports_it_once(package: str):
    assert defer(f"{package}.heavy") is True
    stand_in = importlib.import_module(f"{package}.heavy")  # what `import a.b` binds
    exec(f"import {package}.heavy", {})
    assert _loads(package) == []
    assert stand_in.VALUE == 42 and stand_in.double(4) == 8
    assert _loads(package) == [1]
    real = sys.modules[f"{package}.heavy"]
    assert real is not stand_in and isinstance(real, ModuleType)
    assert sys.modules[package].heavy is real  # the parent holds the real one
    assert importlib.import_module(f"{package}.heavy") is real
    assert stand_in.VALUE == 42 and _loads(package) == [1]  # never imported twice


def test_from_import_of_a_deferred_module_imports_it(package: str):
    defer(f"{package}.heavy")
    scope: dict[str, object] = {}
    exec(f"from {package}.heavy import VALUE", scope)
    assert scope["VALUE"] == 42 and _loads(package) == [1]


def test_threads_reading_a_deferred_module_at_once_import_it_once(package: str):
    defer(f"{package}.heavy")
    stand_in = importlib.import_module(f"{package}.heavy")
    start = threading.Barrier(8)
    values: list[int] = []

    def read() -> None:
        start.wait()
        values.append(stand_in.double(21))

    threads = [threading.Thread(target=read) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert values == [42] * 8 and _loads(package) == [1]


def test_a_missing_attribute_is_still_an_attribute_error(package: str):
    defer(f"{package}.heavy")
    module = importlib.import_module(f"{package}.heavy")
    with pytest.raises(AttributeError, match="nothing_here"):
        _ = module.nothing_here


def test_an_imported_or_missing_module_is_left_alone(package: str):
    importlib.import_module(f"{package}.heavy")
    assert defer(f"{package}.heavy") is False
    assert _loads(package) == [1] and not hasattr(sys.modules[f"{package}.heavy"], "__getattr__")
    assert defer(f"{package}.absent") is False
    with pytest.raises(ModuleNotFoundError, match="absent"):
        importlib.import_module(f"{package}.absent")
    assert defer(f"no_such_package_{uuid.uuid4().hex[:8]}.mod") is False


def _imports_http_client(deferred: bool) -> bool:
    code = ("import sys\n"
            "from spark_cli.lazy_modules import defer\n"
            f"if {deferred}: defer('urllib.request')\n"
            "import websockets.asyncio.client\n"
            "print('http.client' in sys.modules)\n"
            "import urllib.request\n"
            "assert isinstance(urllib.request.getproxies(), dict)\n"
            "assert 'http.client' in sys.modules\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip() == "True"


def test_websockets_client_no_longer_imports_urllib_request_until_a_proxy_is_read():
    assert _imports_http_client(deferred=False) is True
    assert _imports_http_client(deferred=True) is False


def test_preset_names_are_read_without_importing_the_module(package: str):
    assert defer(f"{package}.heavy", {"VALUE": 42}) is True
    scope: dict[str, object] = {}
    exec(f"from {package}.heavy import VALUE", scope)  # asks for __path__ first: not there
    assert scope["VALUE"] == 42 and _loads(package) == []
    exec(f"from {package}.heavy import double", scope)
    assert _loads(package) == [1] and scope["double"](2) == 4  # type: ignore[operator]


def test_a_deferred_package_still_has_a_path(tmp_path: Path, package: str):
    sub = tmp_path / package / "sub"
    sub.mkdir()
    (sub / "__init__.py").write_text("NAME = 'sub'\n")
    (sub / "leaf.py").write_text("LEAF = 1\n")
    assert defer(f"{package}.sub") is True
    scope: dict[str, object] = {}
    exec(f"from {package}.sub import leaf", scope)
    assert scope["leaf"].LEAF == 1  # type: ignore[attr-defined]


def test_the_libraries_on_a_one_shots_way_still_leave_the_deferred_stdlib_unread():
    """What defer_stdlib saves: a Python or library upgrade that reads one of them on the
    way (dataclasses, urllib.parse, logging; asyncio comes after the request) loads it and fails
    here."""
    code = ("import sys\n"
            "from spark_cli.lazy_modules import STDLIB_UNUSED, defer_stdlib\n"
            "defer_stdlib()\n"
            "import dataclasses, json, logging, urllib.parse\n"
            "@dataclasses.dataclass(frozen=True, slots=True)\n"
            "class Point:\n"
            "    '''A point.'''\n"
            "    x: int\n"
            "urllib.parse.urlsplit('http://127.0.0.1:9/v1')\n"
            "logging.getLogger('spark').debug('x')\n"
            "print([n for n in STDLIB_UNUSED if type(sys.modules[n]).__name__ != '_Deferred'])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"

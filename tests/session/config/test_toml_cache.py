"""Parsed config tables kept in ``.spark/cache/config.json``: tomllib only for new text."""

from __future__ import annotations

import json
import sys
import tomllib
from pathlib import Path

import pytest

from spark_cli.session.config import toml_cache
from spark_cli.session.config.toml_cache import KEEP, parse_toml

TEXT = 'model = "m"\nkind = "chat_sse"\n\n[providers.local]\nbase_url = "http://h/v1"\n'


def cache_of(root: Path) -> dict:
    return json.loads((root / ".spark" / "cache" / "config.json").read_text())


def without_tomllib(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "tomllib", None)  # an import of it now fails


def test_a_text_parsed_once_is_read_back_without_tomllib(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch):
    first = parse_toml(TEXT, tmp_path)
    assert first == tomllib.loads(TEXT)
    assert (tmp_path / ".spark" / ".gitignore").read_text() == "*\n"
    without_tomllib(monkeypatch)
    assert parse_toml(TEXT, tmp_path) == first


def test_a_changed_text_is_parsed_again(tmp_path: Path):
    parse_toml(TEXT, tmp_path)
    changed = TEXT.replace('"m"', '"other"')
    assert parse_toml(changed, tmp_path)["model"] == "other"
    assert len(cache_of(tmp_path)["files"]) == 2


def test_bad_toml_raises_as_tomllib_does_and_is_not_kept(tmp_path: Path):
    with pytest.raises(tomllib.TOMLDecodeError):
        parse_toml('model = "unterminated\n', tmp_path)
    assert not (tmp_path / ".spark" / "cache" / "config.json").exists()


def test_a_table_json_cannot_hold_is_parsed_every_time(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch):
    dated = "when = 2026-12-03\n"
    assert str(parse_toml(dated, tmp_path)["when"]) == "2026-12-03"
    assert not (tmp_path / ".spark" / "cache" / "config.json").exists()
    without_tomllib(monkeypatch)
    with pytest.raises(ImportError):
        parse_toml(dated, tmp_path)


FILES_NOT_A_TABLE = json.dumps({"version": 1, "python": toml_cache._PYTHON, "files": []})


@pytest.mark.parametrize("content", ["not json", '{"version": 1, "python": "2.7", "files": {}}',
                                     FILES_NOT_A_TABLE])
def test_a_broken_or_foreign_cache_is_ignored_and_replaced(tmp_path: Path, content: str):
    cache = tmp_path / ".spark" / "cache"
    cache.mkdir(parents=True)
    (cache / "config.json").write_text(content)
    assert parse_toml(TEXT, tmp_path) == tomllib.loads(TEXT)
    assert cache_of(tmp_path)["python"] == toml_cache._PYTHON


def test_only_the_newest_texts_are_kept(tmp_path: Path):
    for n in range(KEEP + 3):
        parse_toml(f"n = {n}\n", tmp_path)
    files = cache_of(tmp_path)["files"]
    assert len(files) == KEEP
    assert {v["n"] for v in files.values()} == set(range(3, KEEP + 3))


def test_without_a_root_nothing_is_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    assert parse_toml(TEXT, None) == tomllib.loads(TEXT)
    assert not (tmp_path / ".spark").exists()


def test_a_read_only_repo_still_parses(tmp_path: Path):
    (tmp_path / ".spark").write_text("a file where the folder would go")
    assert parse_toml(TEXT, tmp_path) == tomllib.loads(TEXT)

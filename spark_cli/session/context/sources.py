"""The one place the context package imports ``spark_cli.edits``: paths, text files, grammars,
writes.

Everything the context code needs from the edits leaf goes through here, so a
move of edits modules touches one file.
"""

from __future__ import annotations

from spark_cli.edits.disk.atomic import write_atomic
from spark_cli.edits.disk.paths import confine
from spark_cli.edits.disk.textfile import read_text_file
from spark_cli.edits.lang.definitions import definition_nodes, has_definitions, name_text
from spark_cli.edits.lang.grammars import (
           get_language,
           get_parser,
           language_for_path,
           tags_query_source,
)
from spark_cli.edits.model.outcome import FileRefused

__all__ = ["FileRefused", "confine", "definition_nodes", "get_language", "get_parser",
           "has_definitions", "language_for_path", "name_text", "read_text_file",
           "tags_query_source", "write_atomic"]

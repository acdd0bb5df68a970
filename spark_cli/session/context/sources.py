"""The one place the context package imports ``spark_cli.edits``: paths, text files, grammars.

Everything the context code needs from the edits leaf goes through here, so a
move of edits modules touches one file.
"""

from __future__ import annotations

from spark_cli.edits.grammars import get_language, get_parser, language_for_path, tags_query_source
from spark_cli.edits.paths import PathRefused, confine
from spark_cli.edits.textfile import TextFileError, read_text_file

__all__ = ["PathRefused", "TextFileError", "confine", "get_language",
           "get_parser", "language_for_path", "read_text_file", "tags_query_source"]

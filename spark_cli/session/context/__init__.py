"""What travels with a turn besides the ask: the files, the names in the prompt, the repo map.

One concept per module:

- :mod:`.sources` -- the one place this package reads ``spark_cli.edits``
  (confinement, text decoding, grammars);
- :mod:`.scan` -- the repo's files (the walk of :mod:`spark_cli.tools.repo_files`), without
  vendored, binary or huge files;
- :mod:`.tags` -- one file's definitions (tree-sitter tags queries) and the
  identifiers it uses;
- :mod:`.index` -- every file's tags, cached per file by (mtime, size) in
  memory and in ``.spark/cache/``;
- :mod:`.rank` -- a personalised PageRank over the file reference graph, and
  the definitions it ranks (pure);
- :mod:`.outline` -- the ranked definitions as a compact outline within a token
  budget (pure);
- :mod:`.mentions` -- the files and symbols a prompt names (pure);
- :mod:`.report` -- the plain-data report the HUD shows;
- :mod:`.targets` -- reading one file a request sends (confined, decoded, checked);
- :mod:`.picks` -- the files a turn sends (the caller's, those the prompt names,
  those mentioning a symbol it names), in that order, within the room left;
- :mod:`.repo_map` -- the repo map: its share of the window, the outline that fits,
  how it travels;
- :mod:`.assemble` -- one turn's context within the window: picks, then the map,
  then the whole message fitted and reported;
- :mod:`.context_set` -- the files a user added (``/add``, ``/drop``, ``/files``).

docs/context.md says what goes in, in which order, and how it is trimmed.
"""

"""What travels with a turn besides the ask: the files, the names in the prompt, the repo map.

One concept per module, each saying what it owns: :mod:`.scan` (the repo's files),
:mod:`.tags` (one file's definitions), :mod:`.index` (every file's tags, cached),
:mod:`.rank` (a personalised PageRank over the file reference graph), :mod:`.mentions`
(what a prompt names), :mod:`.report` (what the HUD shows), :mod:`.targets` (one file a
request sends), :mod:`.picks` (the files a turn sends), :mod:`.repo_map` (the ranked
definitions within the map's share, and how it travels), :mod:`.assemble` (one turn's
context within the window) and :mod:`.context_set` (the files a user added).
docs/context.md says what goes in.
"""

"""The files on disk: repo paths, text decoding, atomic writes, the undo journal."""

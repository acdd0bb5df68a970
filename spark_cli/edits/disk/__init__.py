"""The files on disk: confinement to the repo, text decoding, atomic writes, the undo
journal, the dry-run overlay, shortened paths.
"""

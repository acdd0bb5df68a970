"""Languages: tree-sitter grammars, parsed trees, definitions (one module for the edit
anchors, the repo map and the engine's brains), anchors and the syntax check of an edit.
"""

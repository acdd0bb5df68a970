"""Languages: tree-sitter grammars, parsed trees, definitions (anchors) and the syntax
check of an edit.
"""

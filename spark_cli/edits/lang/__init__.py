"""Languages: tree-sitter grammars, definitions, anchors and the syntax check of an edit."""

"""The edit engine: streaming edit parser, tree-sitter locate/validate, safe apply, undo."""

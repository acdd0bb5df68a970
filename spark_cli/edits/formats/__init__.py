"""The two edit formats: the streaming parser that reads them, and rendering them."""

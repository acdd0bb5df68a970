"""The two edit formats (SEARCH/REPLACE, apply_patch): the streaming parser that reads them
from a model's answer, and rendering edits back as text.
"""

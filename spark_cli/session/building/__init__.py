"""Building one turn's request: the files it sends, the instructions, the budget."""

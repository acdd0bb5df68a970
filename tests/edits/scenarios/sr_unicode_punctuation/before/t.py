def title():
    return "Spark — “fast” edits"

def msg():
    title = "Spark — the CLI"
    return title

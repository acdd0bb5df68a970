def f(:
    pass
Y = 2

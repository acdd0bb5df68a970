def f(:
    pass
Y = 1

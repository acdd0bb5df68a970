def a(x):
    x += 1
    return x


def b(x):
    x += 1
    return x

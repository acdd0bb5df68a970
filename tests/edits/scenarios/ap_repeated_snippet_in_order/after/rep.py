def a(x):
    x += 10
    return x


def b(x):
    x += 20
    return x

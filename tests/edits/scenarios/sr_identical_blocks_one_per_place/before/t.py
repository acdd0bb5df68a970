def a():
    timeout = 30
    return timeout


def b():
    timeout = 30
    return timeout

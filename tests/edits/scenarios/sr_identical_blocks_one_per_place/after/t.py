def a():
    timeout = 60
    return timeout


def b():
    timeout = 60
    return timeout

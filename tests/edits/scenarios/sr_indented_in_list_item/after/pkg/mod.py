def h():
    return 3

def other():
    return None


def another():
    return None

# the end

def total(items):
    return sum(i for i in items if i > 0)

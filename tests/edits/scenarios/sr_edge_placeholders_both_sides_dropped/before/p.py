def process(items):
    total = 0
    for item in items:
        total += item.price
        log(item)
    return total


def other():
    return 1

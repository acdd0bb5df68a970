def process(items):
    total = 0
    for item in items:
        total += item.price
        log(item)
    return round(total, 2)


def other():
    return 1

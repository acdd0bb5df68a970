class Box:
    def __init__(self):
        self.items = []

    def add(self, item):
        if item is None:
            raise ValueError("no item")
        self.items.append(item)

class Box:
    def __init__(self):
        self.items = []

    def add(self, item):
        if item is None:
            return
        self.items.append(item)

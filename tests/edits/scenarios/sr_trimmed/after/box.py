class Box:
    def __init__(self):
        self.items = []

    def add(self, item):
        if not item:
            return
        self.items.append(item)

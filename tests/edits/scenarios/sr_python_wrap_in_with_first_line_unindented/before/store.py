class Store:
    def save(self, rows):
        for row in rows:
            self.db.put(row)
        self.db.flush()

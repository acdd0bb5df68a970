class Store:
    def save(self, rows):
        with self.lock:
            for row in rows:
                self.db.put(row)
            self.db.flush()
